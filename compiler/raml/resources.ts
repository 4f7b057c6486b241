// OpenAPI paths to RAML 1.0 resources: one node per path segment, uriParameters on the segment that
// names them; shared parameters (deepObject filters as `<property>[<op>]`) and problem responses become traits.
import type { TypeConverter } from './types.ts';

type Schema = Record<string, unknown>;
type Node = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The resources; `sharedTraits` receives a trait per shared response (`<Name>_<status>`). */
export function resourceTree(doc: Schema, types: TypeConverter, sharedTraits: Node): Node {
  const root: Node = {};
  const resolve = (s: Schema): Schema => {
    const path = typeof s.$ref === 'string' ? s.$ref.replace('#/components/', '').split('/') : undefined;
    return path ? ((doc.components as Record<string, Record<string, Schema>>)[path[0]!]![path[1]!]!) : s;
  };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    let node = root;
    const segments = path.split('/').slice(1);
    for (const seg of segments) node = (node[`/${seg}`] ??= {}) as Node;
    for (const m of METHODS) {
      const op = item[m] as Schema | undefined;
      if (!op) continue;
      const raw = (op.parameters as Schema[] | undefined) ?? [];
      for (const p of raw.map(resolve).filter((x) => x.in === 'path')) {
        // The parameter belongs to the node whose segment names it.
        let at = root;
        for (const seg of segments) {
          at = at[`/${seg}`] as Node;
          if (seg === `{${p.name as string}}`) break;
        }
        const uri = (at.uriParameters ??= {}) as Node;
        uri[p.name as string] = param(p, types, true);
      }
      node[m] = method(op, raw, resolve, types, sharedTraits);
    }
  }
  return root;
}

const traitName = (ref: string) => ref.split('/').pop()!.replace(/[^A-Za-z0-9_-]/g, '_');

/** components.parameters (query and header ones) as RAML traits, by the names methods use in `is`. */
export function traits(doc: Schema, types: TypeConverter): Node {
  const params = ((doc.components as Record<string, Record<string, Schema>>).parameters ?? {});
  return Object.fromEntries(Object.entries(params).filter(([, p]) => p.in !== 'path')
    .map(([name, p]) => [traitName(name), parameterBlock([p], types)]));
}

/** queryParameters and headers for parameters; a deepObject filter becomes one `<name>[<op>]` each. */
function parameterBlock(params: Schema[], types: TypeConverter): Node {
  const query: Node = {}, headers: Node = {};
  for (const p of params) {
    const s = p.schema as Schema;
    if (p.in === 'query' && p.style === 'deepObject') {
      for (const [op, v] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
        query[`${p.name as string}[${op}]`] = param({ name: `${p.name as string}_${op}`, schema: v, description: p.description }, types, false);
      }
    } else if (p.in === 'query') query[p.name as string] = param(p, types, Boolean(p.required));
    else if (p.in === 'header') headers[p.name as string] = param(p, types, Boolean(p.required));
  }
  return { ...(Object.keys(query).length ? { queryParameters: query } : {}), ...(Object.keys(headers).length ? { headers } : {}) };
}

function param(p: Schema, types: TypeConverter, required: boolean): unknown {
  const t = types.convert(p.schema as Schema, `param_${String(p.name).replace(/\W/g, '_')}`);
  const out: Node = typeof t === 'string' ? { type: t } : { ...t };
  if (typeof p.description === 'string') out.description = p.description;
  out.required = required;
  return out;
}

function method(op: Schema, raw: Schema[], resolve: (s: Schema) => Schema, types: TypeConverter, sharedTraits: Node): Node {
  const out: Node = { displayName: op.operationId };
  const text = [op.summary, op.description].filter((x) => typeof x === 'string').join('. ');
  if (text) out.description = text;
  // Shared parameters (components.parameters) are traits; inline ones are spelled out here.
  const is = raw.filter((p) => typeof p.$ref === 'string' && resolve(p).in !== 'path').map((p) => traitName(p.$ref as string));
  if (is.length) out.is = is;
  Object.assign(out, parameterBlock(raw.filter((p) => !p.$ref && p.in !== 'path'), types));
  const body = op.requestBody as Schema | undefined;
  if (body) out.body = bodies(resolve(body), typeof body.$ref === 'string' ? body.$ref.split('/').pop()! : undefined);
  const responses = new Map<number, Node>();
  for (const [status, r0] of Object.entries(op.responses as Record<string, Schema>)) {
    if (status === 'default') continue; // RAML has no catch-all response: every status is listed
    const shared = typeof r0.$ref === 'string' ? `${traitName(r0.$ref)}_${status}` : undefined;
    if (shared) {
      // A shared (problem) response is a trait too.
      sharedTraits[shared] ??= { responses: new Map([[Number(status), response(resolve(r0), resolve)]]) };
      ((out.is ??= []) as string[]).push(shared);
    } else responses.set(Number(status), response(resolve(r0), resolve));
  }
  out.responses = responses;
  return out;
}

function response(r: Schema, resolve: (s: Schema) => Schema): Node {
  const res: Node = { description: r.description };
  if (r.headers) {
    res.headers = Object.fromEntries(Object.entries(r.headers as Record<string, Schema>).map(([h, v]) => {
      const hv = resolve(v);
      return [h, { type: 'string', ...(hv.description ? { description: hv.description } : {}) }];
    }));
  }
  if (r.content) res.body = bodies(r, undefined);
  return res;
}

/** Each media type of a request body as its named type: the requestBodies entry's name, or the schema's. */
function bodies(body: Schema, name: string | undefined): Node {
  return Object.fromEntries(Object.entries(body.content as Record<string, Schema>).map(([mt, c]) => {
    const ref = (c.schema as Schema).$ref;
    return [mt, { type: name ?? (typeof ref === 'string' ? ref.split('/').pop() : 'any') }];
  }));
}
