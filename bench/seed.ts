// Seeds the publishing example for measurements: users, projects with owners and members, and posts spread
// over them (every project holds a quarter of each status), written set-based as the table owner, then ANALYZEd.
import type postgres from 'postgres';

/** The bench's caller: an editor who owns and is a member of a few projects (so she may create and edit there). */
export const BENCH_USER = 'u5';
export const BENCH_CLAIMS = { sub: BENCH_USER, roles: ['editor'], email: 'u5@example.com' };
/** Projects the bench user can write in: p1 … p20. */
export const OWN_PROJECTS = 20;

/** Post ids: post<i>; those with i % 4 = 2 are published (visible to every reader). */
export const publishedPostId = (n: number) => `post${n * 4 + 2}`;

/**
 * Drafts (i % 4 = 0) the bench user may not read, of `rows` seeded, `most` at most: in a project not hers and by
 * another author, so a read of one is refused. Post i is in project (i + i / projects) mod projects + 1
 * (seedPublishing). None when every project is hers (fewer than 100 × OWN_PROJECTS rows).
 */
export function hiddenDraftIds(rows: number, most = 10_000): string[] {
  const projects = Math.max(OWN_PROJECTS, Math.round(rows / 100));
  const ids: string[] = [];
  for (let i = 0; i < rows && ids.length < most; i += 4) {
    const project = (i + Math.floor(i / projects)) % projects + 1;
    if (project > OWN_PROJECTS && `u${i % 2000 + 1}` !== BENCH_USER) ids.push(`post${i}`);
  }
  return ids;
}

export async function seedPublishing(sql: postgres.Sql, rows: number): Promise<void> {
  const projects = Math.max(OWN_PROJECTS, Math.round(rows / 100));
  const tables = ['users', 'projects', 'projects_members', 'posts', 'tags', 'posts_tags'];
  // Server-managed values (ids, owners, versions, timestamps) are written directly: the write-rule
  // triggers judge requests, not the seed.
  for (const t of tables) await sql.unsafe(`ALTER TABLE app.${t} DISABLE TRIGGER USER`);
  try {
    // One hash for all (a Password column holds bcrypt hashes only), at bcrypt's lowest cost.
    await sql`INSERT INTO app.users (id, email, password) SELECT 'u' || i, 'u' || i || '@example.com', h
      FROM generate_series(1, 2000) i, (SELECT extensions.crypt('x', extensions.gen_salt('bf', 4)) AS h) s`;
    await sql`INSERT INTO app.projects (id, name, owner_id)
      SELECT 'p' || i, 'Project ' || i, CASE WHEN i <= ${OWN_PROJECTS} THEN ${BENCH_USER} ELSE 'u' || (i % 2000 + 1) END
      FROM generate_series(1, ${projects}::int) i`;
    await sql`INSERT INTO app.projects_members (project_id, user_id, role, status)
      SELECT 'p' || i, 'u' || ((i * 7) % 2000 + 1), 'editor', 'active' FROM generate_series(1, ${projects}::int) i
      UNION SELECT 'p' || i, ${BENCH_USER}, 'editor', 'active' FROM generate_series(1, ${OWN_PROJECTS}::int) i
      ON CONFLICT DO NOTHING`;
    // Post i goes to project (i + i / projects) mod projects: the quotient shifts each round of projects by one, so a
    // project's posts cycle through the four statuses (i mod 4) and each holds a quarter published, as a project has.
    await sql`INSERT INTO app.posts (id, project_id, title, body, status, author_id, word_count, created_at, updated_at)
      SELECT 'post' || i, 'p' || ((i + i / ${projects}::int) % ${projects}::int + 1), 'Title ' || i, 'Body of post ' || i,
        (ARRAY['draft', 'in_review', 'published', 'archived'])[i % 4 + 1], 'u' || (i % 2000 + 1), i % 500, now(), now()
      FROM generate_series(0, ${rows}::int - 1) i`;
    // Twenty tags; each post has two of them (what `include=tags` embeds).
    await sql`INSERT INTO app.tags (slug, label) SELECT 'tag' || i, 'Tag ' || i FROM generate_series(1, 20) i`;
    await sql`INSERT INTO app.posts_tags (post_id, tag_slug)
      SELECT 'post' || i, 'tag' || (i % 20 + 1) FROM generate_series(0, ${rows}::int - 1) i
      UNION ALL SELECT 'post' || i, 'tag' || ((i + 7) % 20 + 1) FROM generate_series(0, ${rows}::int - 1) i`;
  } finally {
    for (const t of tables) await sql.unsafe(`ALTER TABLE app.${t} ENABLE TRIGGER USER`);
  }
  await sql`ANALYZE`;
}
