// The publishing rows the query and search suites read: two projects and five posts whose values
// make every operator, JSON path and sort key give a different, known answer (ids p1..p5).
import { dataOf, type Client } from './http.ts';

export const POSTS = {
  p1: {
    title: 'Alpha news', body: 'the quick brown fox', rating: 4.5, word_count: 100, published_on: '2024-01-10',
    reading_slot: '08:30', featured: true, tags_cache: ['a', 'b'], legacyCode: 'L-1',
    meta: { address: { city: 'Paris', zip: '75001' }, priority: 10, labels: ['x', 'y'] },
  },
  p2: {
    title: 'beta Story', body: 'lazy dog sleeps', status: 'in_review', rating: 2, word_count: 50, published_on: '2024-03-01',
    reading_slot: '12:00', featured: false, tags_cache: ['b'], meta: { address: { city: 'Berlin' }, priority: 9 },
  },
  p3: { title: 'Gamma 100% done', word_count: 0, meta: { priority: 100, address: { city: 'paris', zip: '75002' } } },
  p4: {
    title: "O'Brien's fox", body: 'quick fox jumps', status: 'in_review', rating: 5, word_count: 1000,
    published_on: '2023-12-31', reading_slot: '23:59:59', tags_cache: ['c'],
  },
  p5: { title: 'Delta', body: 'quick', rating: 0.5, word_count: 7, published_on: '2024-01-10', reading_slot: '08:30', meta: { priority: 2, labels: ['x'] } },
} as const;

export type PostId = keyof typeof POSTS;

/** Creates the projects and posts (p5 in the second project) and moves p2 to published. */
export async function seedPosts(api: Client): Promise<{ projectA: string; projectB: string }> {
  const projectA = dataOf(await api.post('/projects', { name: 'Project A' }), 201).id as string;
  const projectB = dataOf(await api.post('/projects', { name: 'Project B' }), 201).id as string;
  for (const [id, post] of Object.entries(POSTS)) {
    const project_id = id === 'p5' ? projectB : projectA;
    dataOf(await api.post('/posts', { id, project_id, ...post }), 201);
  }
  dataOf(await api.patch('/posts/p2', { status: 'published' }));
  return { projectA, projectB };
}

/** The ids of a list reply's rows, in the order returned. */
export const idsOf = (body: { data: Array<{ id: unknown }> }): string[] => body.data.map((r) => String(r.id));
