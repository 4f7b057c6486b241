// A JSON property's schema made self-contained: its local `$ref`s inlined, so it keeps its meaning inside the
// request bodies, API documents and index-path checks it is embedded in, where `#` is no longer its own root.

/** Keywords whose values are data, not schemas: a `$ref` member inside them is no reference. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Containers of referenced schemas and identifiers of the root: gone once every local reference is inlined. */
const DROPPED = new Set(['definitions', '$defs', '$id', '$schema']);

export class SchemaReferenceError extends Error {}

/** Schemas an inlined schema may hold: references that fan out (a -> b, b; b -> c, c; …) grow it exponentially. */
export const MAX_INLINED_NODES = 10_000;

/**
 * The schema with every local `$ref` (`#`, `#/definitions/x`, or the same under the root `$id`) replaced by
 * what it points at (its sibling keywords kept beside it in `allOf`), and `definitions`, `$defs`, `$id` and
 * `$schema` dropped. Other references (the draft-07 meta-schema) stay. Throws SchemaReferenceError for a
 * reference that is recursive, is no JSON pointer, or points at nothing, and past MAX_INLINED_NODES.
 */
export function selfContained(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const rootId = typeof schema.$id === 'string' ? schema.$id.replace(/#$/, '') : undefined;
  const localPointer = (ref: string): string | undefined => {
    if (ref.startsWith('#')) return ref.slice(1);
    if (rootId && ref.startsWith(`${rootId}#`)) return ref.slice(rootId.length + 1);
    return rootId && ref === rootId ? '' : undefined;
  };
  let nodes = 0;
  const walk = (node: unknown, expanding: readonly string[]): unknown => {
    if (++nodes > MAX_INLINED_NODES) {
      throw new SchemaReferenceError(`with its $refs inlined the schema would hold more than ${MAX_INLINED_NODES} values: refer to fewer schemas, or to each fewer times`);
    }
    if (Array.isArray(node)) return node.map((n) => walk(n, expanding));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && localPointer(value) !== undefined) continue;
      if (DROPPED.has(key)) continue;
      out[key] = DATA_KEYWORDS.has(key) ? value : walk(value, expanding);
    }
    const ref = typeof node.$ref === 'string' ? node.$ref : undefined;
    const pointer = ref === undefined ? undefined : localPointer(ref);
    if (pointer === undefined) return out;
    if (expanding.includes(pointer)) throw new SchemaReferenceError(`$ref "${ref}" refers to a schema that contains it: a recursive schema cannot be inlined`);
    const target = walk(resolvePointer(schema, pointer, ref!), [...expanding, pointer]);
    if (Object.keys(out).length === 0) return target;
    return { ...out, allOf: [...(Array.isArray(out.allOf) ? out.allOf : []), target] };
  };
  return walk(schema, []);
}

/** The value at a JSON pointer (RFC 6901) inside `root`. */
function resolvePointer(root: unknown, pointer: string, ref: string): unknown {
  if (pointer !== '' && !pointer.startsWith('/')) throw new SchemaReferenceError(`$ref "${ref}" is not a JSON pointer into this schema`);
  let node: unknown = root;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    const next = Array.isArray(node) ? node[Number(key)] : isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === undefined) throw new SchemaReferenceError(`$ref "${ref}" points at nothing in this schema`);
    node = next;
  }
  return node;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
