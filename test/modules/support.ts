// What each module's test needs: a database with a small model installed, plain SQL as a request role, the
// engine called as the gateway calls it (api.dispatch), and the problem document a refusal becomes.
import * as assert from 'uvu/assert';
import { asRole, freshDatabase, installModel, type Claims, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { problemFromDatabase } from '../../server/problem/database.ts';
import { problemBody } from '../../server/problem/render.ts';

export type Tx = any;

export interface ModuleDb {
  db: TestDatabase;
  manifest: Manifest;
  /** Runs `fn` as the authenticated role (sub u1 unless `claims` say otherwise). */
  as<T = any>(fn: (tx: Tx) => Promise<T>, claims?: Claims): Promise<T>;
  /** The error `fn` raises as the authenticated role (it must raise one). */
  error(fn: (tx: Tx) => Promise<unknown>, claims?: Claims): Promise<any>;
  /** `api.dispatch('authenticated', claims, ip, fn, args)`: the compiled function's result. */
  call(fn: string, args: unknown, claims?: Claims): Promise<any>;
  /** The error of a dispatched call (it must fail). */
  refusal(fn: string, args: unknown, claims?: Claims): Promise<any>;
  /** The problem document the gateway answers for a database error. */
  problem(err: unknown, ownTables?: string[]): Record<string, unknown>;
  close(): Promise<void>;
}

/** The `api` block and one entity `collection` with `properties`, open to every caller. */
export const moduleModel = (slug: string, entities: Record<string, unknown>) => ({ api: testApi(slug), entities });

export async function moduleDatabase(model: unknown): Promise<ModuleDb> {
  const db = await freshDatabase();
  const { model: compiled } = await installModel(db, model);
  const manifest = buildManifest(compiled);
  const USER = { sub: 'u1' };
  const as = <T>(fn: (tx: Tx) => Promise<T>, claims: Claims = USER) => asRole<T>(db.sql, 'authenticated', claims, fn);
  const call = async (fn: string, args: unknown, claims: Claims = USER) =>
    (await db.sql`select api.dispatch('authenticated', ${db.sql.json(claims as any)}, '127.0.0.1', ${fn}, ${db.sql.json(args as any)}) as r`)[0]!.r;
  return {
    db, manifest, as, call,
    async error(fn, claims) {
      try { await as(fn, claims); } catch (err) { return err; }
      assert.unreachable('should have failed');
    },
    async refusal(fn, args, claims) {
      try { await call(fn, args, claims); } catch (err) { return err; }
      assert.unreachable(`${fn} should have been refused`);
    },
    problem: (err, ownTables = []) => problemBody(problemFromDatabase(err, { manifest, anonymous: false, ownTables }),
      { docsUrl: 'https://docs.example.com/', instance: '/test' }),
    close: () => db.close(),
  };
}
