// The operator table has one home (compiler/query/operators.ts): the SQL filter emitter reads the same
// facts through lib.operators(), and the gateway and SQL agree on which operator applies to which property.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILTER_OPS, OPERATORS, refusal } from '../../compiler/query/operators.ts';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import type { Model } from '../../compiler/model/types.ts';

let db: TestDatabase;
let model: Model;
test.before(async () => {
  db = await freshDatabase();
  ({ model } = await installModel(db, 'examples/publishing.model.json'));
});
test.after(async () => db?.close());

test('lib.operators() is the TypeScript table: names, value kinds, SQL operators and types', async () => {
  const [row] = await db.sql`select lib.operators() as o`;
  const sql = row!.o as Record<string, { value: string; sql?: string; types?: string[] }>;
  assert.equal(Object.keys(sql).sort(), [...FILTER_OPS].sort());
  for (const op of FILTER_OPS) {
    const o = OPERATORS[op] as { value: string; sql?: string; types?: readonly string[] };
    assert.is(sql[op]!.value, o.value, op);
    assert.is(sql[op]!.sql, o.sql, op);
    assert.equal(sql[op]!.types, o.types ? [...o.types] : undefined, op);
  }
});

const SAMPLE: Record<string, unknown> = { String: 'x', Number: '1', Boolean: 'true', Date: '2024-01-31', Time: '13:45:00', DateTime: '2024-01-31T13:45:00Z' };

test('on every plain property of Post, the gateway and the SQL emitter accept the same operators', async () => {
  const props = Object.entries(model.entities.Post!.properties)
    .filter(([, p]) => !p.multiple && p.type !== 'JSON' && p.type !== 'Binary' && !p.modules?.FileURL && !p.modules?.ImageURL && !p.writeOnly);
  assert.ok(props.length > 8);
  for (const [name, p] of props) {
    for (const op of FILTER_OPS) {
      const kind = OPERATORS[op].value;
      const value = kind === 'flag' ? true : kind === 'list' ? [SAMPLE[p.type]] : SAMPLE[p.type];
      const gateway = refusal(op, { operand: 'scalar', type: p.type, searchIndexed: Boolean(p.searchIndexed) }) === undefined;
      const node = { field: name, op, value };
      const inSql = await db.sql`select lib.filter_sql(lib.fields('posts'), ${db.sql.json(node as any)}, '{}') as w`.then(() => true, (e) => {
        if (e.code !== 'PT400') throw e;
        return false;
      });
      assert.is(inSql, gateway, `${name}[${op}]: gateway ${gateway ? 'accepts' : 'refuses'}, SQL ${inSql ? 'accepts' : 'refuses'}`);
    }
  }
});

test.run();
