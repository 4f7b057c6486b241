// Cuts emitted SQL into statements, and names what each statement is about (a column, a function, a table's
// policies), so that a migration can carry the statements that changed and only those.

/**
 * The statements of `sql`, each with the comments before it and a comment ending its last line. Quotes,
 * identifiers, dollar-quoted bodies and comments are skipped whole; the compiler writes no E'' strings.
 */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0, i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      i = sql.indexOf(c, i + 1);
      while (i !== -1 && sql[i + 1] === c) i = sql.indexOf(c, i + 2); // '' and "" inside
      if (i === -1) break;
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === '$' && /^\$([A-Za-z_]\w*)?\$/.test(sql.slice(i, i + 64)) && !/\w/.test(sql[i - 1] ?? '')) {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end === -1 ? n : end + tag.length;
    } else if (c === ';') {
      i++;
      const rest = /^[ \t]*(--[^\n]*)?/.exec(sql.slice(i))![0]; // a comment on the statement's last line is its own
      i += rest.length;
      out.push(sql.slice(start, i).trim());
      start = i;
    } else i++;
  }
  const tail = sql.slice(start).trim();
  if (tail) out.push(tail);
  return out;
}

/** The statement without the comment lines before it, runs of white space as one space, none after an opening parenthesis. */
const head = (statement: string) => statement.replace(/^(\s*--[^\n]*\n)*\s*/, '').replace(/\s+/g, ' ').replace(/\( /g, '(');

/** A quoted or bare SQL name with its schema: `"app"."posts_read"` -> `app.posts_read`. */
const NAME = String.raw`((?:"[^"]+"|[\w$]+)(?:\.(?:"[^"]+"|[\w$]+))?)`;
const bare = (name: string) => name.replace(/"/g, '');

/** What a statement of a table's (or the model's) SQL is about; undefined for the rest of its part. */
export function subjectOf(statement: string): string | undefined {
  const s = head(statement);
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^SELECT meta\.ensure_column\('([^']+)', '([^']+)'/, (m) => `column ${m[2]}`],
    [/^SELECT meta\.rename_column\('([^']+)', '([^']+)', '([^']+)'/, (m) => `column ${m[3]}`],
    [new RegExp(String.raw`^COMMENT ON COLUMN ${NAME}\.("[^"]+"|\w+) IS`), (m) => `comment ${bare(m[2]!)}`],
    [/^SELECT meta\.ensure_(?:constraint|index)\('([^']+)', '([^']+)'/, (m) => `rule ${m[2]}`],
    [new RegExp(String.raw`^CREATE (?:OR REPLACE )?FUNCTION ${NAME}\(`), (m) => `function ${bare(m[1]!)}`],
    [new RegExp(String.raw`^DROP FUNCTION IF EXISTS ${NAME}\(`), (m) => `function ${bare(m[1]!)}`],
    [new RegExp(String.raw`^SELECT meta\.drop_if_returns\('${NAME}\(`), (m) => `function ${bare(m[1]!)}`],
    [new RegExp(String.raw`^(?:COMMENT ON|REVOKE \w+ ON|GRANT \w+ ON) FUNCTION ${NAME}\(`), (m) => `function ${bare(m[1]!)}`],
    [new RegExp(String.raw`^CREATE (?:OR REPLACE )?TRIGGER (\w+) .* ON ${NAME} `), (m) => `trigger ${m[1]}`],
    [new RegExp(String.raw`^DROP TRIGGER IF EXISTS (\w+) ON ${NAME}`), (m) => `trigger ${m[1]}`],
    [/^INSERT INTO lib\.(\w+) \(\w+, \w+\) VALUES \(('(?:[^']|'')*'|true), '/, (m) => `document ${m[1]} ${m[2]}`],
    [/^SELECT meta\.drop_policies\(/, () => 'policies'],
    [/^(?:CREATE|COMMENT ON) POLICY /, () => 'policies'],
  ];
  for (const [re, name] of rules) {
    const m = re.exec(s);
    if (m) return name(m);
  }
  return undefined;
}
