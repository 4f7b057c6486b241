// The access decisions of both example models as one table (caller × request → status, winner, rows,
// detail), run over HTTP (publishing/billing.test.ts) and straight in SQL (sql.test.ts). Seeds: world.ts.
import { BILLING_CASES, BILLING_PERSONAS } from './billing-cases.ts';

export type Claims = Record<string, unknown>;

export interface Case {
  /** What the row shows: the rule, the merge step or the spec 5.3 row. */
  why: string;
  /** A persona of the suite (null claims: anonymous). */
  as: string;
  /** `METHOD /path?query` below the API's base path; `@name` stands for a key seeded by world.ts. */
  req: string;
  body?: Record<string, unknown>;
  /** The caller's IP: X-Forwarded-For over HTTP (the server trusts it), the ip argument in SQL. Default 127.0.0.1. */
  ip?: string;
  status: number;
  /** Successes: the winning scenario's label (Access-Scenario header, `scenario` of the SQL result). */
  scenario?: string;
  /** Lists: exactly these keys (any order); meta.total is their number. */
  ids?: string[];
  /** Refusals: what the problem detail (SQL: the message) must name. */
  names?: string[];
  /** A known defect this row exposes (the row keeps the correct expectation, so it fails until fixed). */
  bug?: string;
}

export interface Suite {
  model: string;
  personas: Record<string, Claims | null>;
  cases: Case[];
}

const READERS = 'Readers';
const STAKE = 'Stakeholders work on their projects';
const POSTS = 'Editors and authors manage posts of their projects';
const AUTHORS = 'Authors edit their posts until they are published';
const SELF = 'Users manage themselves';
const ADMIN = 'Administrators can do anything';
const COMMENTERS = 'Authors manage their comments';

export const PUBLISHING_PERSONAS: Record<string, Claims | null> = {
  anon: null,
  adm: { sub: '@adm', roles: ['admin'], email: 'adm@example.com' },
  ann: { sub: '@ann', roles: ['editor'], email: 'ann@example.com' }, // owns project PA
  bob: { sub: '@bob', roles: ['author'], email: 'bob@example.org' }, // member of PA, writes its posts
  cat: { sub: '@cat', roles: ['editor'], email: 'Cat@Example.COM' }, // member of PB
  dan: { sub: '@dan', roles: ['author'], email: 'dan@elsewhere.net' }, // owns PB
  rev: { sub: '@rev', roles: ['reviewer'], email: 'rev@example.com' },
  eve: { sub: '@eve', email: 'eve@elsewhere.net' }, // signed in, no role, no stake
};

const PUBLISHED = ['a-del', 'a-pub', 'b-pub'];
const ALL_A = ['a-arch', 'a-del', 'a-draft', 'a-pubme', 'a-pub', 'a-review', 'a-tmp'];

/** Runs in order: collections first (nothing has moved yet), then reads, creates, updates, links, deletes. */
export const PUBLISHING_CASES: Case[] = [
  // FETCH: the winner's pruned tree filters the rows (or-pruning), ANDed with the caller's own filter.
  { why: 'allowPublic + lifecycle allow on list (5.3)', as: 'anon', req: 'GET /posts', status: 200, scenario: READERS, ids: PUBLISHED },
  { why: 'lifecycle allow on search (5.3)', as: 'anon', req: 'POST /posts/search', body: {}, status: 200, ids: PUBLISHED },
  { why: 'status outside the allow list: 200, empty', as: 'anon', req: 'GET /posts?status=draft', status: 200, ids: [] },
  { why: 'editor stakeholder (owner) sees the drafts of PA', as: 'ann', req: 'GET /posts', status: 200, ids: [...ALL_A, 'b-pub'] },
  { why: 'filter ANDed with the tree', as: 'ann', req: 'GET /posts?status=draft', status: 200, ids: ['a-draft', 'a-pubme', 'a-tmp'] },
  { why: 'editor stakeholder (member) sees PB', as: 'cat', req: 'GET /posts', status: 200, ids: ['a-del', 'a-pub', 'b-cat', 'b-draft', 'b-pub'] },
  { why: 'author: editor branch pruned, owner branch kept', as: 'dan', req: 'GET /posts', status: 200, ids: ['a-del', 'a-pub', 'b-draft', 'b-pub'] },
  { why: 'branch without data rules: no row scoping', as: 'adm', req: 'GET /posts', status: 200, ids: [...ALL_A, 'b-cat', 'b-draft', 'b-pub'] },
  { why: 'signed in, no role: the public branch only', as: 'eve', req: 'POST /posts/search', body: {}, status: 200, ids: PUBLISHED },
  { why: 'nested list: parent read as stakeholder (member)', as: 'bob', req: 'GET /projects/@PA/posts', status: 200, ids: ALL_A },
  { why: 'nested list: parent pre-flight hidden', as: 'dan', req: 'GET /projects/@PA/posts', status: 403, names: [STAKE, 'matchProjectStakeholder'] },
  { why: 'nested list: parent missing', as: 'bob', req: 'GET /projects/missing/posts', status: 404 },
  { why: 'matchProjectStakeholder via owner', as: 'ann', req: 'GET /projects', status: 200, scenario: STAKE, ids: ['@PA'] },
  { why: 'matchProjectStakeholder via membership', as: 'bob', req: 'GET /projects', status: 200, ids: ['@PA'] },
  { why: 'entity before api: the admin is no stakeholder', as: 'adm', req: 'GET /projects', status: 200, scenario: STAKE, ids: [] },
  { why: 'allowAuthenticated: anonymous 401', as: 'anon', req: 'GET /projects', status: 401 },
  { why: 'allowAuthenticated (action level)', as: 'eve', req: 'GET /users?email=ann@people.example', status: 200, scenario: 'Signed-in users see users', ids: ['@ann'] },
  { why: 'allowAuthenticated: anonymous 401', as: 'anon', req: 'GET /users', status: 401 },
  { why: 'allowPublic (action level)', as: 'anon', req: 'GET /tags', status: 200, scenario: 'Everyone reads tags', ids: ['news', 'tips'] },
  { why: 'allowPublic', as: 'anon', req: 'GET /comments', status: 200, scenario: 'Everyone reads comments', ids: ['@c1'] },
  { why: 'linked list: the owner\'s read', as: 'anon', req: 'GET /posts/a-pub/tags', status: 200, scenario: READERS, ids: ['news'] },
  { why: 'linked list of a hidden owner', as: 'anon', req: 'GET /posts/a-draft/tags', status: 403, names: [READERS, 'lifecycleStatus'] },
  { why: 'nested list: the parent post read by the public', as: 'anon', req: 'GET /posts/a-pub/comments', status: 200, ids: ['@c1'] },
  // POST_FETCH: the loaded record against the winner; 403 names the scenario and the failing rule.
  { why: '5.3: anonymous, public scenario, status allowed', as: 'anon', req: 'GET /posts/a-pub', status: 200, scenario: READERS },
  { why: '5.3: anonymous, public scenario, status not allowed', as: 'anon', req: 'GET /posts/a-draft', status: 403, names: [READERS, '(action level)', 'lifecycleStatus (allowed: published)'] },
  { why: '5.3: any caller, id does not exist', as: 'anon', req: 'GET /posts/nope', status: 404 },
  { why: 'editor stakeholder reads a draft', as: 'ann', req: 'GET /posts/a-draft', status: 200, scenario: READERS },
  { why: 'editor without a stake: every kept branch fails', as: 'cat', req: 'GET /posts/a-draft', status: 403, names: [READERS, 'lifecycleStatus', 'matchProjectStakeholder', 'matchResourceOwner'] },
  { why: 'matchResourceOwner branch', as: 'bob', req: 'GET /posts/a-draft', status: 200, scenario: READERS },
  { why: '5.3: administrator without status rule', as: 'adm', req: 'GET /posts/a-arch', status: 200, scenario: READERS },
  { why: 'stakeholder via owner', as: 'ann', req: 'GET /projects/@PA', status: 200, scenario: STAKE },
  { why: 'stakeholder via membership', as: 'bob', req: 'GET /projects/@PA', status: 200, scenario: STAKE },
  { why: 'no stake: 403 naming scenario, level, rule', as: 'dan', req: 'GET /projects/@PA', status: 403, names: [STAKE, '(entity level)', 'matchProjectStakeholder'] },
  { why: 'entity before api: admin refused', as: 'adm', req: 'GET /projects/@PA', status: 403, names: [STAKE] },
  { why: 'missing project', as: 'ann', req: 'GET /projects/missing', status: 404 },
  { why: 'sub-resource GET: the owner\'s read', as: 'eve', req: 'GET /users/@ann/profile', status: 200, scenario: 'Signed-in users see users' },
  { why: 'sub-resource GET: anonymous 401', as: 'anon', req: 'GET /users/@ann/profile', status: 401 },
  { why: 'a readable record under another parent is missing there', as: 'ann', req: 'GET /projects/@PA/posts/b-pub', status: 404 },
  { why: 'and cannot be changed through it', as: 'ann', req: 'PATCH /projects/@PA/posts/b-pub', body: { title: 'Moved?' }, status: 404 },
  // Create: PRE_FETCH, then the new record against the winner; lifecycle rules never apply to create.
  { why: 'allowPublic signs up', as: 'anon', req: 'POST /users', body: { email: 'new@example.com' }, status: 201, scenario: 'Anyone signs up' },
  { why: 'allowAuthenticated creates (action level)', as: 'eve', req: 'POST /projects', body: { name: 'Eve' }, status: 201, scenario: 'Any signed-in user starts a project' },
  { why: 'allowAuthenticated: anonymous 401', as: 'anon', req: 'POST /projects', body: { name: 'X' }, status: 401 },
  { why: 'matchUserRole (override)', as: 'ann', req: 'POST /tags', body: { slug: 't-ann', label: 'Ann' }, status: 201, scenario: 'Only editors create tags' },
  { why: 'override: the api admin scenario does not apply', as: 'adm', req: 'POST /tags', body: { slug: 't-adm', label: 'Adm' }, status: 403, names: ['create Tag'] },
  { why: 'no scenario, signed in: 403', as: 'eve', req: 'POST /tags', body: { slug: 't-eve', label: 'Eve' }, status: 403 },
  { why: 'no scenario, anonymous: 401', as: 'anon', req: 'POST /tags', body: { slug: 't-anon', label: 'Anon' }, status: 401 },
  { why: 'author creates in a project she is member of', as: 'bob', req: 'POST /posts', body: { id: 'n-bob', project_id: '@PA', title: 'New' }, status: 201, scenario: POSTS },
  { why: 'the parent must be readable, on a flat path as on a nested one: no stake', as: 'dan', req: 'POST /posts', body: { id: 'n-dan', project_id: '@PA', title: 'New' }, status: 403, names: [STAKE] },
  { why: 'nested create: parent pre-flight', as: 'dan', req: 'POST /projects/@PA/posts', body: { id: 'n-dan2', title: 'New' }, status: 403 },
  { why: 'Status initialStatuses still governs create', as: 'bob', req: 'POST /posts', body: { id: 'n-bob2', project_id: '@PA', title: 'New', status: 'published' }, status: 422 },
  { why: 'api level wins the create, but the project (entity before api) is not the admin\'s to read', as: 'adm', req: 'POST /posts', body: { id: 'n-adm', project_id: '@PB', title: 'New' }, status: 403, names: [STAKE] },
  { why: 'matchEmailDomain (action level wins)', as: 'bob', req: 'POST /comments', body: { post_id: 'a-pub', body: 'Hi' }, status: 201, scenario: 'Signed-in users from trusted domains comment' },
  { why: 'email domain fails: entity level wins next', as: 'dan', req: 'POST /comments', body: { post_id: 'a-pub', body: 'Hi' }, status: 201, scenario: COMMENTERS },
  { why: 'matchEmailDomain: the domain compares case-insensitively', as: 'cat', req: 'POST /comments', body: { post_id: 'a-pub', body: 'Hi' }, status: 201, scenario: 'Signed-in users from trusted domains comment' },
  { why: 'no scenario for anonymous comments', as: 'anon', req: 'POST /comments', body: { post_id: 'a-pub', body: 'Hi' }, status: 401 },
  // Updates: matchResourceAttribute, lifecycle deny, owner; the record as it is decides.
  { why: 'matchResourceAttribute: in_review allowed', as: 'rev', req: 'PATCH /posts/a-review', body: { title: 'Reviewed' }, status: 200, scenario: 'Reviewers move posts through review' },
  { why: 'matchResourceAttribute: published allowed', as: 'rev', req: 'PATCH /posts/a-pub', body: { title: 'Reviewed' }, status: 200, scenario: 'Reviewers move posts through review' },
  { why: 'matchResourceAttribute: draft refused', as: 'rev', req: 'PATCH /posts/a-draft', body: { title: 'Reviewed' }, status: 403, names: ['Reviewers move posts through review', 'matchResourceAttribute (status in in_review, published)'] },
  { why: 'author edits her draft', as: 'bob', req: 'PATCH /posts/a-draft', body: { title: 'Edited' }, status: 200, scenario: AUTHORS },
  { why: '5.3: author editing, status in deniedStatuses', as: 'bob', req: 'PATCH /posts/a-pub', body: { title: 'Edited' }, status: 403, names: [AUTHORS, 'lifecycleStatus (denied: published, archived)'] },
  { why: '5.3: deny list on replace', as: 'bob', req: 'PUT /posts/a-arch', body: { title: 'Edited' }, status: 403, names: [AUTHORS, 'lifecycleStatus'] },
  { why: 'matchResourceOwner fails', as: 'dan', req: 'PATCH /posts/a-draft', body: { title: 'Edited' }, status: 403, names: [AUTHORS, 'matchResourceOwner'] },
  { why: '5.3: administrator without status rule', as: 'adm', req: 'PATCH /posts/a-arch', body: { title: 'Edited' }, status: 200, scenario: 'Administrators edit anything' },
  { why: 'no scenario, anonymous: 401 before any row', as: 'anon', req: 'PATCH /posts/nope', body: { title: 'Edited' }, status: 401 },
  { why: '5.3: id does not exist', as: 'bob', req: 'PATCH /posts/nope', body: { title: 'Edited' }, status: 404 },
  { why: 'rules judge the record as it is, not as it becomes', as: 'bob', req: 'PATCH /posts/a-pubme', body: { status: 'published' }, status: 200, scenario: AUTHORS,
    bug: 'an UPDATE that reads columns (WHERE, RETURNING) makes PostgreSQL check the NEW row against the SELECT policies, which carry the update winner\'s tree: a move into a denied status is 42501 (403)' },
  { why: 'users manage themselves', as: 'ann', req: 'PATCH /users/@ann', body: { display_name: 'Ann' }, status: 200, scenario: SELF },
  { why: 'matchResourceOwner (id) fails', as: 'eve', req: 'PATCH /users/@ann', body: { display_name: 'Eve' }, status: 403, names: [SELF, 'matchResourceOwner (id)'] },
  { why: 'entity before api: admin refused', as: 'adm', req: 'PATCH /users/@ann', body: { display_name: 'Adm' }, status: 403, names: [SELF] },
  { why: 'sub-resource PUT: the owner\'s update', as: 'ann', req: 'PUT /users/@ann/profile', body: { bio: 'Editor' }, status: 200, scenario: SELF },
  { why: 'sub-resource PUT by another user', as: 'eve', req: 'PUT /users/@ann/profile', body: { bio: 'Eve' }, status: 403, names: [SELF] },
  { why: 'comment author edits', as: 'ann', req: 'PATCH /comments/@c1', body: { body: 'Edited' }, status: 200, scenario: COMMENTERS },
  { why: 'not the comment\'s author', as: 'bob', req: 'PATCH /comments/@c1', body: { body: 'Edited' }, status: 403, names: [COMMENTERS, 'matchResourceOwner'] },
  { why: 'an administrator moderates a comment (the entity level names admins before authors, so the api level is never needed)', as: 'adm', req: 'PATCH /comments/@c1', body: { body: 'Moderated' }, status: 200, scenario: 'Administrators moderate comments' },
  { why: 'api level (Tag has no entity scenarios)', as: 'adm', req: 'PATCH /tags/news', body: { label: 'NEWS' }, status: 200, scenario: ADMIN },
  { why: 'editor: no scenario updates tags', as: 'ann', req: 'PATCH /tags/news', body: { label: 'N' }, status: 403 },
  { why: 'member updates the project', as: 'bob', req: 'PATCH /projects/@PA', body: { name: 'PA!' }, status: 200, scenario: STAKE },
  // Relations: link/unlink are the owner's link/unlink actions; the target must be readable.
  { why: 'link by an author stakeholder', as: 'bob', req: 'PUT /posts/a-draft/tags/news', status: 201, scenario: POSTS },
  { why: 'link without a stake', as: 'dan', req: 'PUT /posts/a-draft/tags/tips', status: 403, names: [POSTS] },
  { why: 'link target missing', as: 'bob', req: 'PUT /posts/a-draft/tags/missing', status: 404 },
  { why: 'link, anonymous', as: 'anon', req: 'PUT /posts/a-pub/tags/tips', status: 401 },
  { why: 'unlink by an author stakeholder', as: 'bob', req: 'DELETE /posts/a-draft/tags/news', status: 204, scenario: POSTS },
  { why: 'owner adds a member', as: 'ann', req: 'PUT /projects/@PA/members/@eve', body: { role: 'viewer' }, status: 201, scenario: STAKE },
  { why: 'membership makes a stakeholder', as: 'eve', req: 'GET /projects/@PA', status: 200, scenario: STAKE },
  { why: 'owner removes the member', as: 'ann', req: 'DELETE /projects/@PA/members/@eve', status: 204 },
  { why: 'and the stake is gone', as: 'eve', req: 'GET /projects/@PA', status: 403, names: ['matchProjectStakeholder'] },
  { why: 'no stake: cannot add members', as: 'dan', req: 'PUT /projects/@PA/members/@dan', body: { role: 'editor' }, status: 403 },
  // Delete and restore (restore is FETCH: a row the tree hides is not found).
  { why: 'delete without a stake', as: 'dan', req: 'DELETE /posts/a-tmp', status: 403, names: [POSTS, 'matchProjectStakeholder'] },
  { why: 'delete by an author stakeholder', as: 'bob', req: 'DELETE /posts/a-tmp', status: 204, scenario: POSTS },
  { why: 'restore FETCH hides the row from a non-stakeholder', as: 'dan', req: 'POST /posts/a-tmp/restore', status: 404 },
  { why: 'restore, anonymous', as: 'anon', req: 'POST /posts/a-tmp/restore', status: 401 },
  { why: 'restore by an author stakeholder', as: 'bob', req: 'POST /posts/a-tmp/restore', status: 200, scenario: POSTS },
  { why: '5.3: administrator deletes a published post', as: 'adm', req: 'DELETE /posts/a-del', status: 204, scenario: ADMIN },
  { why: '5.3: id does not exist', as: 'adm', req: 'DELETE /posts/nope', status: 404 },
  { why: 'not the comment\'s author', as: 'bob', req: 'DELETE /comments/@c1', status: 403, names: [COMMENTERS] },
];

export const PUBLISHING: Suite = { model: 'examples/publishing.model.json', personas: PUBLISHING_PERSONAS, cases: PUBLISHING_CASES };
export const BILLING: Suite = { model: 'examples/billing.model.json', personas: BILLING_PERSONAS, cases: BILLING_CASES };
