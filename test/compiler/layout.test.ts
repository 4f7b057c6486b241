// Emitted SQL has layout (style.md): no line of a golden file, of an example's compiled script or of the kit's
// .sql files is over WIDTH characters, and the layout changes only whitespace (strings split across lines join
// into the same text).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileModel } from '../../compiler/index.ts';
import { emitEngine, modelParts } from '../../compiler/emit.ts';
import { validateModel } from '../../compiler/model/validate.ts';
import { buildObject, call, fill, WIDTH, wrapLong } from '../../compiler/sql/layout.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const files = (dir: string, ext: string) => readdirSync(root + dir).filter((f) => f.endsWith(ext)).sort().map((f) => dir + f);

function longLines(text: string): string[] {
  return text.split('\n').map((l, i) => [l, i + 1] as const).filter(([l]) => l.length > WIDTH).map(([l, n]) => `line ${n} (${l.length}): ${l.slice(0, 80)}…`);
}

test('golden files have no line over WIDTH characters', () => {
  const golden = files('test/compiler/golden/', '.sql');
  assert.ok(golden.length >= 4, golden.join(', '));
  for (const f of golden) assert.equal(longLines(readFileSync(root + f, 'utf8')), [], f);
});

test('every example compiles to a script with no line over WIDTH characters', () => {
  const examples = files('examples/', '.model.json');
  assert.ok(examples.length >= 2, examples.join(', '));
  for (const f of examples) {
    const { sql } = compileModel(JSON.parse(readFileSync(root + f, 'utf8')));
    assert.equal(longLines(sql), [], f);
  }
});

test('the kit\'s .sql files have no line over WIDTH characters', () => {
  for (const f of files('compiler/sql/', '.sql')) assert.equal(longLines(readFileSync(root + f, 'utf8')), [], f);
});

test('fragments stay on one line when short and break with indentation when long', () => {
  assert.is(call('f', ['a', 'b']), 'f(a, b)');
  const long = Array.from({ length: 12 }, (_, i) => `t."column_${i}"`);
  assert.is(call('f', long), `f(\n${long.map((c) => `  ${c}`).join(',\n')}\n)`);
  const inner = buildObject('jsonb_build_object', long.map((c, i) => [`'k${i}'`, c]));
  const outer = buildObject('jsonb_build_object', [["'inner'", inner], ["'n'", '1']]);
  assert.ok(outer.startsWith("jsonb_build_object(\n  'inner', jsonb_build_object(\n    'k0', t.\"column_0\",\n"), outer);
  assert.ok(outer.endsWith("\n  ),\n  'n', 1\n)"), outer);
  const filled = fill('ARRAY[', long.map((c) => `'${c}'`), ']::text[]');
  assert.ok(filled.split('\n').every((l) => l.length <= 100), filled);
});

test('wrapLong breaks at clause boundaries and splits only plain string literals, never $q$ text or identifiers', () => {
  const cond = Array.from({ length: 20 }, (_, i) => `"c${i}" = ${i}`).join(' AND ');
  const wrapped = wrapLong(`CREATE POLICY "p" ON "app"."t" USING (${cond});`);
  assert.ok(wrapped.split('\n').every((l) => l.length <= WIDTH), wrapped);
  assert.is(wrapped.replace(/\s+/g, ' '), `CREATE POLICY "p" ON "app"."t" USING (${cond});`);
  const text = 'word '.repeat(50).trim();
  const comment = wrapLong(`COMMENT ON TABLE t IS '${text}';`);
  const parts = [...comment.matchAll(/'([^']*)'/g)].map((m) => m[1]);
  assert.ok(parts.length > 1, comment);
  assert.is(parts.join(''), text, 'the split literal joins into the same text');
  assert.match(comment, /'\n\s*'/, 'the parts are on separate lines (PostgreSQL joins them only then)');
  const dollar = `SELECT $q$${'x '.repeat(100)}$q$;`;
  assert.is(wrapLong(dollar), dollar);
});

/**
 * The SQL's tokens with the whitespace between them dropped and comments left out; a string literal continued on
 * the next line ('a' <newline> 'b') read as the one string SQL makes of it.
 */
function tokens(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length;) {
    if (sql.startsWith('--', i)) { while (i < sql.length && sql[i] !== '\n') i++; continue; }
    if (sql[i] === "'") {
      let text = '', j = i + 1;
      for (;;) {
        if (sql[j] === "'" && sql[j + 1] === "'") { text += "''"; j += 2; continue; }
        if (sql[j] === "'") {
          const next = /^'[ \t]*\n\s*'/.exec(sql.slice(j, j + 400));
          if (next) { j += next[0].length; continue; }
          break;
        }
        text += sql[j++];
      }
      out += `'${text}'`;
      i = j + 1;
      continue;
    }
    if (!/\s/.test(sql[i]!)) out += sql[i];
    i++;
  }
  return out;
}

test('wrapLong changes only whitespace in the example\'s script (string continuations join into the same text)', () => {
  const model = validateModel(JSON.parse(readFileSync(`${root}examples/publishing.model.json`, 'utf8')));
  for (const p of modelParts(model)) assert.is(tokens(wrapLong(p.sql)), tokens(p.sql), `${p.section} ${p.table}`);
  const engine = emitEngine();
  assert.is(tokens(wrapLong(engine)), tokens(engine));
});

test.run();
