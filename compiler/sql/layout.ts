// Layout of the emitted SQL: fragments that would make a long line break over lines with indentation
// (pg-sql2's `indent`), so the script reads one clause a line and no line passes WIDTH characters.
// Whitespace only: a fragment laid out means the same SQL as on one line. Never used inside a quoted string.

/** The longest line the emitted SQL may have (test/compiler/layout.test.ts). */
export const WIDTH = 160;

/** A fragment longer than this on one line is broken (it usually sits after other text on its line). */
export const INLINE = 100;

/**
 * A JSON document's value that fits in a line this long (with its indentation, key and comma) stays on it: a stored
 * document is data, read a member a line (a property's facts, a column's), not an expression to follow.
 */
export const JSON_LINE = 150;

/** Every non-empty line of `text` indented by `by` (pg-sql2's indent): a fragment nested one level down. */
export function indent(text: string, by = '  '): string {
  return text.split('\n').map((l) => (l ? by + l : l)).join('\n');
}

/**
 * A line of a block written with its own leading spaces, whose later lines (a fragment laid out inside it)
 * are relative to column 0: they move along with the first line's indentation.
 */
export function hang(text: string): string {
  const lead = /^ */.exec(text)![0];
  return lead ? text.split('\n').map((l, i) => (i && l ? lead + l : l)).join('\n') : text;
}

/** A statement's clauses (SELECT …, FROM …, WHERE …), on one line when short, else one a line. */
export function query(parts: readonly string[], width = INLINE): string {
  const flat = parts.join(' ');
  return fits(flat, width) ? flat : parts.join('\n');
}

/** `(text)`, or, when it spans lines or is long, its lines indented between the parentheses (a subquery). */
export const paren = (text: string, width = INLINE) => (fits(text, width) ? `(${text})` : `(\n${indent(text)}\n)`);

/** Whether `text` fits on one line of at most `width` characters. */
export const fits = (text: string, width = INLINE) => !text.includes('\n') && text.length <= width;

/**
 * `open items close`, on one line when short, else one item a line indented between `open` and `close` on
 * lines of their own (each item may itself be laid out: its lines move along).
 */
export function list(open: string, items: readonly string[], close: string, width = INLINE): string {
  const flat = `${open}${items.join(', ')}${close}`;
  if (fits(flat, width) || !items.length) return flat;
  return `${open.trimEnd()}\n${items.map((i) => indent(i)).join(',\n')}\n${close}`;
}

/** A function call `name(a, b)`, broken into one argument a line when long. */
export const call = (name: string, args: readonly string[], width = INLINE) => list(`${name}(`, args, ')', width);

/**
 * json_build_object / jsonb_build_object of [key, value] pairs (keys and values SQL), one pair a line when
 * long: the nesting of the object shows in the indentation.
 */
export function buildObject(fn: 'json_build_object' | 'jsonb_build_object', pairs: ReadonlyArray<[string, string]>): string {
  return call(fn, pairs.map(([k, v]) => `${k}, ${v}`));
}

/**
 * Short items (literals, names) filled into lines of at most `width` characters: `open` and the first
 * line, further lines indented, `close` after the last item. One line when all fit.
 */
export function fill(open: string, items: readonly string[], close: string, width = INLINE): string {
  const flat = `${open}${items.join(', ')}${close}`;
  if (fits(flat, width)) return flat;
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line && line.length + item.length + 2 > width) {
      lines.push(`${line},`);
      line = item;
    } else line = line ? `${line}, ${item}` : item;
  }
  lines.push(line);
  return `${open.trimEnd()}\n${indent(lines.join('\n'))}\n${close}`;
}

/**
 * Operands joined by an operator (AND, OR, ||), on one line when short, else each after the first on a line
 * of its own, indented and led by the operator.
 */
export function chain(parts: readonly string[], op: string, width = INLINE): string {
  const flat = parts.join(` ${op} `);
  if (fits(flat, width)) return flat;
  return [parts[0], ...parts.slice(1).map((p) => indent(`${op} ${p}`))].join('\n');
}

/** Short items (columns of a select list) separated by commas, wrapped onto indented lines when long. */
export function wrap(items: readonly string[], width = INLINE): string {
  const filled = fill('(', items, ')', width);
  if (!filled.includes('\n')) return items.join(', ');
  return filled.slice(2, -2).split('\n').map((l, i) => (i ? l : l.trimStart())).join('\n');
}

/** Clauses of one statement (CREATE POLICY …, USING …), on one line when short, else one a line indented. */
export function clauses(head: string, rest: readonly string[], width = WIDTH): string {
  const flat = [head, ...rest].join(' ');
  return fits(flat, width) ? flat : [head, ...rest.map((r) => indent(r))].join('\n');
}

/** Dollar quotes whose text is code (function bodies, DO blocks); any other tag ($q$, $body$) quotes a string. */
const CODE_TAGS = new Set(['', 'fn', 'do']);
/** Where a long line may break: before these words and operators, and after a comma. */
const BREAK_BEFORE = /^(?:\|\||AND\b|OR\b|FROM\b|WHERE\b|THEN\b|ELSE\b|WHEN\b|USING\b|WITH CHECK\b|INTO\b|RETURNING\b|JOIN\b|ORDER BY\b|IS ')/;

/**
 * The last step of the layout, for lines the fragments above leave long (statements written out by hand in
 * an emitter): each line over WIDTH is broken at the shallowest clause boundary or comma that keeps it within
 * WIDTH, its continuation indented by its depth. Only whitespace between tokens changes: it never breaks
 * inside a quoted identifier, a comment or a string in dollar quotes. A string literal too long for any line
 * is split after a space into literals on lines of their own, which SQL joins into the one string
 * ('a' <newline> 'b' is 'ab': PostgreSQL's string continuation).
 */
export function wrapLong(sql: string, width = WIDTH): string {
  // One pass over the text: for every position, whether a line may break there, and the parentheses' depth.
  const depthAt = new Int32Array(sql.length + 1);
  const breakAt = new Uint8Array(sql.length + 1);
  /** Inside a plain string literal, after a space: the literal may be split there. */
  const splitAt = new Uint8Array(sql.length + 1);
  const codeTags: string[] = [];
  let depth = 0;
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    depthAt[i] = depth;
    if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') depthAt[i++] = depth;
      continue;
    }
    if (c === "'" || c === '"') {
      const escaped = c === "'" && /[Ee]/.test(sql[i - 1] ?? '') && !/[A-Za-z0-9_]/.test(sql[i - 2] ?? '');
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (escaped && sql[j] === '\\') { j++; continue; }
        if (sql[j] === c) { if (sql[j + 1] === c) { j++; continue; } break; }
      }
      const plain = c === "'" && !escaped && !/[A-Za-z0-9_&]/.test(sql[i - 1] ?? '');
      for (let k = i + 2; plain && k < j; k++) if (sql[k - 1] === ' ' && sql[k] !== "'" && sql[k] !== ' ') splitAt[k] = 1;
      for (; i <= j; i++) depthAt[i] = depth;
      continue;
    }
    const tag = c === '$' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '') ? /^\$([A-Za-z_]*)\$/.exec(sql.slice(i, i + 40)) : null;
    if (tag) {
      const quote = tag[0];
      if (CODE_TAGS.has(tag[1]!)) {
        if (codeTags.at(-1) === quote) codeTags.pop(); else codeTags.push(quote);
        for (const end = i + quote.length; i < end; i++) depthAt[i] = depth;
        continue;
      }
      const end = sql.indexOf(quote, i + quote.length);
      const stop = end < 0 ? sql.length : end + quote.length;
      for (; i < stop; i++) depthAt[i] = depth;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && sql[i + 1] === ' ') breakAt[i + 2] = 1;
    else if (c === ' ' && sql[i - 1] !== ' ' && BREAK_BEFORE.test(sql.slice(i + 1, i + 12))) breakAt[i + 1] = 1;
    i++;
  }
  const out: string[] = [];
  let lineStart = 0;
  for (let line of sql.split('\n')) {
    const s = lineStart;
    lineStart += line.length + 1;
    if (line.length <= width) { out.push(line); continue; }
    const lead = /^ */.exec(line)![0];
    let from = 0, pad = '';
    for (;;) {
      if (pad.length + line.length - from <= width) break;
      let best = -1;
      const last = Math.min(from + width - pad.length, line.length - 1);
      for (let k = from + 20; k <= last; k++) {
        if (breakAt[s + k] && (best < 0 || depthAt[s + k]! <= depthAt[s + best]!)) best = k;
      }
      if (best < 0) {
        // After a clause of the text (". ", "; ", ": ", ", ") in the second half of the line, else after any word.
        let split = -1, clause = -1;
        for (let k = from + 20; k <= last - 1; k++) {
          if (!splitAt[s + k]) continue;
          split = k;
          if (k > (from + last) / 2 && '.;:,'.includes(line[k - 2]!)) clause = k;
        }
        if (clause > 0) split = clause;
        if (split < 0) break;
        out.push(`${pad}${line.slice(from, split)}'`);
        line = `${line.slice(0, split - 1)}'${line.slice(split)}`; // the same length: the marks still hold
        from = split - 1;
        pad ||= `${lead}  `;
        continue;
      }
      out.push(pad + line.slice(from, best).trimEnd());
      pad = lead + '  '.repeat(1 + Math.max(0, depthAt[s + best]! - depthAt[s + lead.length]!));
      from = best;
    }
    out.push(pad + line.slice(from));
  }
  return out.join('\n');
}

/** `IF cond THEN statements END IF;`: on one line when short, else a block with the statements indented. */
export function ifThen(cond: string, statements: readonly string[], width = 120): string {
  const flat = `IF ${cond} THEN ${statements.join(' ')} END IF;`;
  return fits(flat, width) ? flat : [`IF ${cond} THEN`, ...statements.map((st) => indent(st)), 'END IF;'].join('\n');
}

/** `CASE arm arm … END` (arms are `WHEN … THEN …` and `ELSE …`): one line when short, else one arm a line. */
export function caseExpr(arms: readonly string[], width = INLINE): string {
  const flat = `CASE ${arms.join(' ')} END`;
  return fits(flat, width) ? flat : `CASE\n${indent(arms.join('\n'))}\nEND`;
}

/** `(a op b op c)` on one line when short, else the operands one a line between the parentheses, nested groups indented. */
export function group(parts: readonly string[], op: string, width = INLINE): string {
  const flat = `(${parts.join(` ${op} `)})`;
  return fits(flat, width) ? flat : `(\n${indent([parts[0], ...parts.slice(1).map((p) => `${op} ${p}`)].join('\n'))}\n)`;
}

/**
 * JSON with layout: a value that fits on its line (after `indent` and a member's `"key": `) stays on it, a longer
 * object or array opens over lines one level in. Parsed back, the same value as JSON.stringify's.
 */
export function json(value: unknown, by = '', prefix = 0): string {
  const flat = JSON.stringify(value);
  // The document itself opens over lines: it sits after the statement's own text.
  const top = by === '' && prefix === 0;
  if (typeof value !== 'object' || value === null || (!top && by.length + prefix + flat.length + 1 <= JSON_LINE)) return flat;
  const inner = `${by}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return flat;
    return `[\n${value.map((x) => inner + json(x, inner)).join(',\n')}\n${by}]`;
  }
  const entries = Object.entries(value).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return flat;
  return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${json(x, inner, JSON.stringify(k).length + 2)}`).join(',\n')}\n${by}}`;
}
