// The schema-driven probe of the billing example (OrganizationRBAC, invoices nested under customers, soft
// delete, a Version named `revision`, JSON lines with a schema): as test/e2e/probe.test.ts, half as many requests.
import { test } from 'uvu';
import { dataOf } from './support/http.ts';
import { probe } from './support/probe.ts';

probe('examples/billing.model.json', async (api) => {
  const customer = dataOf(await api.post('/customers', { name: 'Probe', address: { city: 'Oslo', geo: { lat: 59.9 } } }), 201).id;
  dataOf(await api.post('/invoices', { number: 'INV-0001', customer_id: customer, amount: 10, lines: [{ sku: 'a', qty: 1 }] }), 201);
  dataOf(await api.post(`/customers/${customer}/invoices`, { number: 'INV-0002', amount: 5, due_on: '2030-01-31' }), 201);
  return {
    ids: { customers: [customer], invoices: ['INV-0001', 'INV-0002'] },
    tokens: [undefined, null, await api.token({ sub: 'u-accountant', org: 'o1', org_roles: ['accountant'] }),
      await api.token({ sub: 'u-other', org: 'o2', org_roles: ['owner'] }), await api.token({ sub: 'u-none' }), 'not-a-token'],
  };
}, { minOperations: 15, share: 0.5 });

test.run();
