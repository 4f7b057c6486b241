// Small models shared by tests that need "some valid model" rather than a particular feature,
// and the `api` block every purpose-made test model starts from.

/** One API-level scenario that lets every caller do everything: for tests about something else. */
export const everyone = { label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } };

export const testApi = (slug: string) =>
  ({ slug, version: 'v1', title: `${slug} API`, docsUrl: 'https://docs.example.com', strategy: 'RBAC' as const, scenarios: [everyone] });

/** One entity, one required property, an API-level public scenario. */
export const tinyModel = {
  api: {
    slug: 'tiny', version: 'v1', title: 'Tiny API', docsUrl: 'https://docs.example.com', strategy: 'RBAC',
    scenarios: [{ label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }],
  },
  entities: {
    Note: {
      collection: 'notes',
      properties: { id: { type: 'String', primary: true, readOnly: true }, title: { type: 'String', required: true } },
    },
  },
};
