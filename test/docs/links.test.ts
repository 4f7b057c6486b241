// The documents work in a clone: every relative link of every Markdown file of the repository (README.md, docs/,
// bench/, examples/, …; node_modules and build output skipped) names a file or folder inside the repository, and its
// #anchor a heading of the target (GitHub's slugs); README.md stays a front door of at most 300 lines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { root } from '../harness/child.ts';

const README_MAX_LINES = 300;
const SKIP = new Set(['node_modules', '.git', '.data', 'dist']);

/** Every *.md below `dir`, as paths relative to the repository. */
function markdownFiles(dir = root): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.tmp')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...markdownFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(relative(root, path));
  }
  return found.sort();
}

/** The lines of a document outside fenced code blocks (``` or ~~~), with their numbers; inline code blanked. */
function prose(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    const mark = opener?.[1]?.[0];
    if (mark) {
      if (fence === undefined) fence = mark;
      else if (mark === fence) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    out.push({ line: i + 1, text: raw.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length)) });
  });
  return out;
}

/** GitHub's anchor for a heading (github-slugger): lowercase, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a document's headings, numbered as GitHub numbers repeats (`x`, `x-1`, `x-2`). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const all = new Set<string>();
  for (const { text: line } of prose(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    all.add(n === 0 ? base : `${base}-${n}`);
  }
  return all;
}

/** The link targets of a document: inline links and images (their text may span lines), and reference definitions. */
export function links(text: string): { line: number; target: string }[] {
  const lines: string[] = [];
  for (const { line, text: l } of prose(text)) lines[line - 1] = l;
  const body = Array.from(lines, (l) => l ?? '').join('\n'); // fenced lines blank, so offsets keep their line
  const lineAt = (offset: number) => body.slice(0, offset).split('\n').length;
  const out: { line: number; target: string }[] = [];
  for (const m of body.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+"[^"\n]*")?\s*\)/g)) {
    out.push({ line: lineAt(m.index + m[0].indexOf('](')), target: (m[1] ?? '').replace(/^<|>$/g, '') });
  }
  for (const m of body.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm)) {
    out.push({ line: lineAt(m.index), target: (m[1] ?? '').replace(/^<|>$/g, '') });
  }
  return out.sort((a, b) => a.line - b.line);
}

/** What is wrong with a link of `file` (relative to the repository), or undefined when it resolves. */
export function problem(file: string, target: string, repo = root): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // https:, mailto: …
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const absolute = pathPart === '' ? join(repo, file)
    : pathPart.startsWith('/') ? join(repo, pathPart) : resolve(repo, dirname(file), pathPart);
  const inside = relative(repo, absolute);
  if (inside.startsWith('..') || inside.startsWith(sep) || /^[a-z]:/i.test(inside)) return `points outside the repository (${inside})`;
  if (!existsSync(absolute)) return `no such file: ${inside}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(absolute).isDirectory() || !absolute.endsWith('.md')) return `#${anchor} on ${inside}, which is no Markdown file`;
  if (!anchors(readFileSync(absolute, 'utf8')).has(anchor)) return `no heading #${anchor} in ${inside}`;
  return undefined;
}

const files = markdownFiles();

test('the Markdown files are found: README.md, docs/, bench/', () => {
  for (const expected of ['README.md', join('docs', 'http-api.md'), join('bench', 'README.md')]) {
    assert.ok(files.includes(expected), `${expected} among ${files.join(', ')}`);
  }
  assert.ok(files.every((f) => !f.split(sep).includes('node_modules')));
});

test("GitHub's slugs", () => {
  assert.is(slug("Identity: sign-up, sign-in and other providers' tokens"), 'identity-sign-up-sign-in-and-other-providers-tokens');
  assert.is(slug('PostgreSQL: versions, hosted databases, role names'), 'postgresql-versions-hosted-databases-role-names');
  assert.is(slug('Hosted PostgreSQL (managed databases)'), 'hosted-postgresql-managed-databases');
  assert.is(slug('The `api.*` functions'), 'the-api-functions');
  assert.is(slug('snake_case and Ünïcode'), 'snake_case-and-ünïcode');
  assert.equal([...anchors('# A\n## A\n```\n# not a heading\n```\n### A\n')], ['a', 'a-1', 'a-2']);
});

test('the checker finds what is broken', () => {
  const text = '[ok](README.md) [gone](docs/nothing.md) `[code](nowhere.md)` [out](../shared/design.md) [web](https://example.com)\n'
    + '```\n[fenced](nowhere.md)\n```\n[anchor](docs/http-api.md#no-such-heading) [self](#nothing-here)\n[def]: missing.md\n'
    + 'a [link over\ntwo lines](docs/gone.md)\n';
  const found = links(text).map(({ target }) => [target, problem('README.md', target)]);
  assert.equal(found, [
    ['README.md', undefined],
    ['docs/nothing.md', `no such file: ${join('docs', 'nothing.md')}`],
    ['../shared/design.md', `points outside the repository (${join('..', 'shared', 'design.md')})`],
    ['https://example.com', undefined],
    ['docs/http-api.md#no-such-heading', `no heading #no-such-heading in ${join('docs', 'http-api.md')}`],
    ['#nothing-here', 'no heading #nothing-here in README.md'],
    ['missing.md', 'no such file: missing.md'],
    ['docs/gone.md', `no such file: ${join('docs', 'gone.md')}`],
  ]);
});

test('every relative link of every Markdown file resolves in the repository, anchors included', () => {
  const broken: string[] = [];
  let count = 0;
  for (const file of files) {
    for (const { line, target } of links(readFileSync(join(root, file), 'utf8'))) {
      count++;
      const why = problem(file, target);
      if (why) broken.push(`${file}:${line}: (${target}) ${why}`);
    }
  }
  assert.equal(broken, [], `${broken.length} broken of ${count} links:\n${broken.join('\n')}`);
  assert.ok(count > 50, `only ${count} links found: is the parser blind?`);
});

test(`README.md is a front door of at most ${README_MAX_LINES} lines`, () => {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move the depth into docs/*.md`);
});

test.run();
