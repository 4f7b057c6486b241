// Tier B JSON index paths checked against the property's JSON Schema (spec 2.5):
// a path may end at an array but not pass through one, and arrays take no cast or index type.
import type { Property } from '../types.ts';
import { selfContained } from '../json-schema.ts';

type Node = Record<string, unknown> | boolean | undefined;

function isArrayNode(n: Node): boolean {
  if (!n || typeof n !== 'object') return false;
  const t = n.type;
  return t === 'array' || (Array.isArray(t) && t.includes('array')) || 'items' in n || 'prefixItems' in n;
}

function child(n: Node, key: string): Node {
  if (!n || typeof n !== 'object') return undefined;
  const props = n.properties as Record<string, Node> | undefined;
  return props?.[key];
}

/** True when the property's JSON Schema says the value at `path` is an array. */
export function pathIsArray(p: Property, path: string): boolean {
  let node = inlined(p);
  for (const seg of path.split('.')) node = child(node, seg);
  return isArrayNode(node);
}

/** The property's schema with its local references inlined (as written when they cannot be: validation says why). */
function inlined(p: Property): Node {
  try {
    return selfContained(p.schema) as Node;
  } catch {
    return p.schema as Node;
  }
}

export function jsonPathErrors(p: Property): Array<{ index: number; message: string }> {
  const errors: Array<{ index: number; message: string }> = [];
  const seen = new Set<string>();
  (p.index?.paths ?? []).forEach((entry, index) => {
    if (seen.has(entry.path)) errors.push({ index, message: `path "${entry.path}" is indexed twice` });
    seen.add(entry.path);
    const segments = entry.path.split('.');
    let node = inlined(p);
    for (let i = 0; i < segments.length; i++) {
      node = child(node, segments[i]!);
      if (isArrayNode(node) && i < segments.length - 1) {
        errors.push({ index, message: 'Cannot index a sub-property of an array.' });
        return;
      }
    }
    if (isArrayNode(node) && (entry.cast || entry.type)) {
      errors.push({ index, message: `Index type and cast do not apply to an array property ("${entry.path}").` });
    }
  });
  return errors;
}
