// The model both timestamp modules' tests install: a created and an updated time on one entity.
import { moduleModel } from './support.ts';

export const timestampModel = moduleModel('stamps', {
  Account: {
    collection: 'accounts',
    properties: {
      id: { type: 'String', primary: true, readOnly: true },
      email: { type: 'String' },
      created_at: { type: 'DateTime', readOnly: true, modules: { CreatedTimestamp: {} } },
      updated_at: { type: 'DateTime', readOnly: true, modules: { UpdatedTimestamp: {} } },
    },
  },
});
