// The billing rows of the shared access table (OrganizationRBAC): organization roles incl. "any",
// matchIpAddress on restore, lifecycle allow/deny on invoices, override on delete, tenant confinement.
import type { Case, Claims } from './cases.ts';

const MEMBERS = 'Members of the organization work with customers';
const READ = 'Members read invoices';
const ACCOUNTANTS = 'Accountants handle unpaid invoices';
const OWNERS = 'Organization owners do anything';
const DRAFTS = 'Only drafts are deleted, by accountants';
const OFFICE = 'Office network restores invoices';

export const BILLING_PERSONAS: Record<string, Claims | null> = {
  anon: null,
  owner: { sub: 'o1-owner', org: 'o1', org_roles: ['owner'] },
  acct: { sub: 'o1-acct', org: 'o1', org_roles: ['accountant'] },
  clerk: { sub: 'o1-clerk', org: 'o1', org_roles: ['clerk'] },
  bare: { sub: 'o1-bare', org: 'o1', org_roles: [] }, // in o1, no role
  noorg: { sub: 'x-owner', org_roles: ['owner', 'accountant'] }, // roles, but no active organization
  o2: { sub: 'o2-acct', org: 'o2', org_roles: ['owner', 'accountant'] },
};

const OUTSIDE = '203.0.113.9';
const O1_LIVE = ['INV-1001', 'INV-1002', 'INV-1003', 'INV-1004', 'INV-1009'];

export const BILLING_CASES: Case[] = [
  // Collections: every query confined to the caller's organization.
  { why: 'matchOrganizationRole "any"', as: 'clerk', req: 'GET /customers', status: 200, scenario: MEMBERS, ids: ['@C1'] },
  { why: 'confined to o2', as: 'o2', req: 'GET /customers', status: 200, scenario: MEMBERS, ids: ['@C2'] },
  { why: '"any" needs at least one role', as: 'bare', req: 'GET /customers', status: 403 },
  { why: 'organization roles need an org claim', as: 'noorg', req: 'GET /customers', status: 403 },
  { why: 'anonymous: 401', as: 'anon', req: 'GET /customers', status: 401 },
  { why: 'action level first', as: 'clerk', req: 'GET /invoices', status: 200, scenario: READ, ids: O1_LIVE },
  { why: 'search, confined', as: 'clerk', req: 'POST /invoices/search', body: { where: { status: { eq: 'paid' } } }, status: 200, ids: ['INV-1002'] },
  { why: 'o2 sees only its own', as: 'o2', req: 'GET /invoices', status: 200, ids: ['INV-2001'] },
  { why: 'a filter naming another org\'s customer finds nothing', as: 'clerk', req: 'GET /invoices?customer_id=@C2', status: 200, ids: [] },
  { why: 'nested list under another org\'s customer', as: 'clerk', req: 'GET /customers/@C2/invoices', status: 404,
    bug: 'lib.row_exists ignores the organization, so a row of another tenant counts as hidden (403), not missing' },
  // Single records.
  { why: 'own customer', as: 'owner', req: 'GET /customers/@C1', status: 200, scenario: MEMBERS },
  { why: 'another org\'s customer is missing', as: 'owner', req: 'GET /customers/@C2', status: 404,
    bug: 'lib.row_exists ignores the organization: 403 naming the scenario tells o1 that o2\'s record exists' },
  { why: 'a paid invoice is readable by members', as: 'clerk', req: 'GET /invoices/INV-1002', status: 200, scenario: READ },
  { why: 'another org\'s invoice is missing', as: 'clerk', req: 'GET /invoices/INV-2001', status: 404,
    bug: 'lib.row_exists ignores the organization (403 instead of 404)' },
  { why: 'missing invoice', as: 'clerk', req: 'GET /invoices/INV-9999', status: 404 },
  // Create: organization_id comes from the org claim; no org, no scenario.
  { why: 'any member creates customers', as: 'clerk', req: 'POST /customers', body: { name: 'Clerk Co' }, status: 201, scenario: MEMBERS },
  { why: 'a token without org cannot create', as: 'noorg', req: 'POST /customers', body: { name: 'Nobody' }, status: 403 },
  { why: 'anonymous', as: 'anon', req: 'POST /customers', body: { name: 'Anon' }, status: 401 },
  { why: 'lifecycle rules do not apply to create', as: 'acct', req: 'POST /invoices', body: { number: 'INV-1100', customer_id: '@C1', amount: 5 }, status: 201, scenario: ACCOUNTANTS },
  { why: 'initialStatuses does', as: 'acct', req: 'POST /invoices', body: { number: 'INV-1101', customer_id: '@C1', amount: 5, status: 'paid' }, status: 422 },
  { why: 'no scenario lets a clerk create invoices', as: 'clerk', req: 'POST /invoices', body: { number: 'INV-1102', customer_id: '@C1', amount: 5 }, status: 403 },
  { why: 'nested create under another org\'s customer', as: 'o2', req: 'POST /customers/@C1/invoices', body: { number: 'INV-2100', amount: 5 }, status: 404,
    bug: 'the parent pre-flight answers 403 for another tenant\'s customer (lib.row_exists ignores the organization)' },
  { why: 'an invoice of o1 cannot point at o2\'s customer', as: 'owner', req: 'POST /invoices', body: { number: 'INV-1103', customer_id: '@C2', amount: 5 }, status: 422,
    bug: 'the foreign key is checked past row-level security, so o1 attaches an invoice to o2\'s customer (201)' },
  // Update: entity-level lifecycle deny for accountants; owners fall through to the api level.
  { why: 'deny list: draft passes', as: 'acct', req: 'PATCH /invoices/INV-1001', body: { amount: 11 }, status: 200, scenario: ACCOUNTANTS },
  { why: 'deny list: paid refused', as: 'acct', req: 'PATCH /invoices/INV-1002', body: { amount: 11 }, status: 403, names: [ACCOUNTANTS, '(entity level)', 'lifecycleStatus (denied: paid, void)'] },
  { why: 'deny list: void refused', as: 'acct', req: 'PUT /invoices/INV-1003', body: { amount: 11 }, status: 403, names: [ACCOUNTANTS, 'lifecycleStatus'] },
  { why: 'api level: owner without status rule', as: 'owner', req: 'PATCH /invoices/INV-1002', body: { amount: 12 }, status: 200, scenario: OWNERS },
  { why: 'no scenario for a clerk', as: 'clerk', req: 'PATCH /invoices/INV-1001', body: { amount: 13 }, status: 403, names: ['update Invoice'] },
  { why: 'an accountant marks a draft paid (the record as it was decides)', as: 'acct', req: 'PATCH /invoices/INV-1009', body: { status: 'paid' }, status: 200, scenario: ACCOUNTANTS,
    bug: 'PostgreSQL checks the NEW row of an UPDATE against the SELECT policies, which carry the update winner\'s tree (paid is denied): 42501 (403)' },
  { why: 'another org\'s customer cannot be changed', as: 'owner', req: 'PATCH /customers/@C2', body: { name: 'Mine' }, status: 404,
    bug: 'lib.row_exists ignores the organization (403 instead of 404)' },
  { why: 'another org\'s invoice cannot be changed', as: 'o2', req: 'PATCH /invoices/INV-1001', body: { amount: 1 }, status: 404,
    bug: 'lib.row_exists ignores the organization (403 instead of 404)' },
  // Delete: override keeps only the action's scenario (allow list: draft).
  { why: 'override: owners cannot delete invoices', as: 'owner', req: 'DELETE /invoices/INV-1004', status: 403, names: ['delete Invoice'] },
  { why: 'allow list on delete: paid refused', as: 'acct', req: 'DELETE /invoices/INV-1002', status: 403, names: [DRAFTS, '(action level)', 'lifecycleStatus (allowed: draft)'] },
  { why: 'allow list on delete: draft deleted', as: 'acct', req: 'DELETE /invoices/INV-1004', status: 204, scenario: DRAFTS },
  { why: 'anonymous', as: 'anon', req: 'DELETE /invoices/INV-1001', status: 401 },
  { why: 'another org\'s customer cannot be deleted', as: 'owner', req: 'DELETE /customers/@C2', status: 404,
    bug: 'lib.row_exists ignores the organization (403 instead of 404)' },
  // Restore (FETCH): matchIpAddress at the action level, the accountants' deny list next, owners last.
  { why: 'matchIpAddress passes, role does not: no scenario', as: 'clerk', req: 'POST /invoices/INV-1005/restore', status: 403 },
  { why: 'matchIpAddress 127.0.0.1/32 (loopback)', as: 'acct', req: 'POST /invoices/INV-1005/restore', status: 200, scenario: OFFICE },
  { why: 'matchIpAddress 10.0.0.0/8', as: 'acct', ip: '10.20.30.40', req: 'POST /invoices/INV-1010/restore', status: 200, scenario: OFFICE },
  { why: 'outside the office: entity level, draft allowed', as: 'acct', ip: OUTSIDE, req: 'POST /invoices/INV-1008/restore', status: 200, scenario: ACCOUNTANTS },
  { why: '5.3 restore: deny list filters the row (FETCH)', as: 'acct', ip: OUTSIDE, req: 'POST /invoices/INV-1006/restore', status: 404 },
  { why: 'api level: owner restores', as: 'owner', req: 'POST /invoices/INV-1007/restore', status: 200, scenario: OWNERS },
];
