// The gateway's import graph, read from the sources: server/ holds the request path as a row of layers, each importing
// only the layers below it (style.md "The gateway is a row of named stages"), with no import circle among its files,
// nothing of ops/ (migration and operator tooling stands above the gateway), a short server/app.ts that wires stages,
// and one module that makes problem documents.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { root } from '../harness/child.ts';

/**
 * The layers of server/, bottom first: a folder (`name/`) or a file at server/'s top. A file may import its own
 * layer's files and those of any layer listed before it, never one listed after it. A new folder must be placed here.
 */
const LAYERS = [
  'problem/', // error types, SQLSTATE → status, and the one module that makes problem documents (render.ts)
  'codec/', // JSON text both ways, numbers kept exact
  'request/', // identity and parse: the caller, the path, the query string, the body, preconditions, limits; one parsed request
  'pg/', // pools, gates, the gateway's own connection settings
  'plan/', // route and plan: an endpoint and a request become the one api.* call (pure)
  'query/', // dispatch: the call in one transaction
  'response/', // respond: status, headers, projection
  'files/', // uploads, storage drivers, signed links, the outbox
  'events/', // change streams
  'http/', // middleware and the listening server: access log, metrics, compression, rate limit, connections
  'auth/', // /auth/token, refresh, logout, JWKS
  'webhooks/', // delivery worker
  'docs.ts', // the API's documents
  'health.ts', // /live, /ready, /health
  'stages/', // the named stages of one request (route, identity, parse, plan, dispatch, respond) and the one boundary
  'batch/', // POST …/batch, through the same stages
  'app.ts', // wires middleware and stages
] as const;

/** The longest server/app.ts may grow: it wires, it does not work. */
const APP_MAX_LINES = 100;

const server = join(root, 'server');

function sources(dir: string): string[] {
  return readdirSync(join(server, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file names: static imports and re-exports (`import type` too: a type names its layer), `import('…')`. */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const clause = /^[ \t]*(?:import|export)\s+(?:type\s+)?[\w$*{}\s,]*?\s*from\s*['"]([^'"]+)['"]/gm;
  const bare = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
  const dynamic = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const re of [clause, bare, dynamic]) for (const m of text.matchAll(re)) found.push(m[1]!);
  return found;
}

/** server/'s files, each with the files it imports (paths from the repository's root). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources('')) {
    const from = `server/${file}`;
    const text = readFileSync(join(server, file), 'utf8');
    const targets = specifiers(text).filter((s) => s.startsWith('.')).map((s) => posix.normalize(posix.join(posix.dirname(from), s)));
    graph.set(from, targets);
  }
  return graph;
}

const layerOf = (file: string): number => {
  const rest = file.slice('server/'.length);
  const slash = rest.indexOf('/');
  return LAYERS.indexOf((slash < 0 ? rest : rest.slice(0, slash + 1)) as (typeof LAYERS)[number]);
};

/** Circles among files, each as a path that returns to its start (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

test('the import reader sees imports, re-exports, type imports and import(), and no text that only looks like one', () => {
  const text = [
    "import { a, type B } from './a.ts';",
    'import type {',
    '  C,',
    "} from '../c.ts';",
    "export { d } from './d.ts';",
    "export * from './e.ts';",
    "import './f.ts';",
    "const g = await import('./g.ts');",
    "// a word from './not-an-import.ts'",
    "export function h() { return 'from \\'./nor-this.ts\\''; }",
  ].join('\n');
  assert.equal(specifiers(text).sort(), ['../c.ts', './a.ts', './d.ts', './e.ts', './f.ts', './g.ts']);
});

test('the circle finder finds a circle, and a self-import, and nothing in a tree', () => {
  assert.equal(circles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c']]);
  assert.equal(circles(new Map([['a', ['a']]])), [['a']]);
  assert.equal(circles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), []);
});

const graph = importGraph();

test('every file of server/ stands in a layer that the list names', () => {
  const unplaced = [...graph.keys()].filter((f) => layerOf(f) < 0);
  assert.equal(unplaced, [], `place these in LAYERS: ${unplaced.join(', ')}`);
});

test('server/ imports no file outside itself but the compiler (ops/ stands above the gateway)', () => {
  const outside = [...graph].flatMap(([from, targets]) => targets
    .filter((t) => !t.startsWith('server/') && !t.startsWith('compiler/')).map((t) => `${from} -> ${t}`));
  assert.equal(outside, []);
});

test('no file imports a layer above its own', () => {
  const upward = [...graph].flatMap(([from, targets]) => targets
    .filter((t) => t.startsWith('server/') && layerOf(t) > layerOf(from))
    .map((t) => `${from} (${LAYERS[layerOf(from)]}) -> ${t} (${LAYERS[layerOf(t)]})`));
  assert.equal(upward, [], `imports that run up:\n${upward.join('\n')}`);
});

test('no import circle among the files of server/', () => {
  const found = circles(graph);
  assert.equal(found, [], `circles:\n${found.map((c) => c.join(' <-> ')).join('\n')}`);
});

test(`server/app.ts is at most ${APP_MAX_LINES} lines`, () => {
  const lines = readFileSync(join(server, 'app.ts'), 'utf8').trimEnd().split('\n').length;
  assert.ok(lines <= APP_MAX_LINES, `server/app.ts has ${lines} lines`);
});

/** The one module that turns an error (or a SQLSTATE, through problem/database.ts) into a problem document. */
const PROBLEM_MODULE = 'server/problem/render.ts';

/** What making a problem document elsewhere looks like: its media type, its body's maker, the SQLSTATE mapping. */
export function problemMaking(file: string, text: string, targets: string[]): string[] {
  if (file === PROBLEM_MODULE) return [];
  const found: string[] = [];
  if (/application\/problem\+json/i.test(text)) found.push(`${file} writes application/problem+json`);
  if (/\bproblemBody\b/.test(text)) found.push(`${file} builds a problem body (problemBody)`);
  if (/\bproblemFromDatabase\b/.test(text) && file !== 'server/problem/database.ts') found.push(`${file} maps a database error (problemFromDatabase)`);
  if (targets.includes('server/problem/database.ts')) found.push(`${file} imports problem/database.ts`);
  return found;
}

test('the problem-document check finds each way of making one outside its module, and nothing in that module', () => {
  assert.equal(problemMaking('server/x.ts', "res.writeHead(500, { 'Content-Type': 'application/problem+json' });", []).length, 1);
  assert.equal(problemMaking('server/x.ts', 'const body = problemBody(err, ctx);', []).length, 1);
  assert.equal(problemMaking('server/x.ts', 'throw problemFromDatabase(err, ctx);', ['server/problem/database.ts']).length, 2);
  assert.equal(problemMaking(PROBLEM_MODULE, "const t = 'application/problem+json'; problemBody(e, c);", ['server/problem/database.ts']), []);
  assert.equal(problemMaking('server/x.ts', 'throw fromDatabase(err);', []), []);
});

test(`problem documents are made in ${PROBLEM_MODULE} only; the others throw, or call it`, () => {
  const found = [...graph].flatMap(([file, targets]) => problemMaking(file, readFileSync(join(root, file), 'utf8'), targets));
  assert.equal(found, [], `problem documents made elsewhere:\n${found.join('\n')}`);
});

test.run();
