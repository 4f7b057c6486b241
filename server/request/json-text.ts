// What one linear pass over a request body's JSON text tells before or besides JSON.parse: how deep it nests and how
// many members its objects write, and the first member an object names twice (JSON.parse keeps the last silently).

import { closingQuote } from '../codec/exact-parse.ts';

const QUOTE = 34, BACKSLASH = 92, COLON = 58, COMMA = 44, OPEN_OBJECT = 123, CLOSE_OBJECT = 125, OPEN_ARRAY = 91, CLOSE_ARRAY = 93;

/** The deepest bracket nesting, and the object members written (each has one colon outside strings). */
export function textShape(text: string): { depth: number; members: number } {
  let depth = 0, max = 0, members = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++; // skip the escaped character
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) inString = true;
    else if (ch === COLON) members++;
    else if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) max = Math.max(max, ++depth);
    else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) depth--;
  }
  return { depth: max, members };
}

/**
 * The first member name an object of `text` (JSON that JSON.parse accepted) holds twice, at any depth, whatever the
 * two values are; names are compared as decoded (`"a"` and `"\u0061"` are one name). Undefined when there is none.
 */
export function duplicateMember(text: string): string | undefined {
  const names: Array<Set<string> | undefined> = []; // per open bracket: an object's names so far, or an array's nothing
  let key = false; // the next string is a member name
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      const end = closingQuote(text, i);
      if (key) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        const seen = names[names.length - 1]!;
        if (seen.has(name)) return name;
        seen.add(name);
        key = false;
      }
      i = end;
    } else if (ch === OPEN_OBJECT) {
      names.push(new Set());
      key = true;
    } else if (ch === OPEN_ARRAY) names.push(undefined);
    else if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) names.pop();
    else if (ch === COMMA) key = names[names.length - 1] !== undefined;
  }
  return undefined;
}
