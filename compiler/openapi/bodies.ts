// Moves the request bodies of the operations into components.requestBodies, with their schemas inline:
// generators read `default` there as the server's fill-in (openapi-typescript 7 keeps such members optional),
// while in components.schemas a default makes a member required, as for what responses always carry.
// A body with several media types (PATCH: JSON and merge-patch) keeps its schema there, shared; it has no defaults.
// A bulk create's body (an array of the create objects) is one of its own, `<name>List`, with the object inline too.
import type { Schema } from './common.ts';
import { listBody, listBodyItem } from './operations.ts';

const SCHEMA_REF = '#/components/schemas/';

/** The name of a bulk create's request body: its object's, and this. */
export const LIST_BODY_SUFFIX = 'List';

export function hoistRequestBodies(paths: Record<string, Schema>, schemas: Record<string, Schema>): Record<string, Schema> {
  const bodies: Record<string, Schema> = {};
  const inline = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item) as Schema[]) {
      const body = op.requestBody as { required?: boolean; content: Record<string, { schema: Schema }> } | undefined;
      const json = body?.content['application/json']?.schema;
      const item = listBodyItem(json); // a bulk create's body: a list of the object, inline
      const ref = (item ?? json)?.$ref;
      if (!body || typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF)) continue;
      const object = ref.slice(SCHEMA_REF.length), name = object + (item ? LIST_BODY_SUFFIX : '');
      const shared = Object.keys(body.content).length > 1;
      if (shared && JSON.stringify(schemas[object]).includes('"default"')) throw new Error(`request body ${name} has defaults and several media types`);
      const inlined = item ? listBody(schemas[object]!) : schemas[object];
      const moved: Schema = { required: body.required ?? false, content: shared ? body.content : { 'application/json': { schema: inlined } } };
      if (!shared) inline.add(object);
      const seen = bodies[name];
      if (seen && JSON.stringify(seen) !== JSON.stringify(moved)) throw new Error(`request body ${name} is used in two ways`);
      bodies[name] = moved;
      op.requestBody = { $ref: `#/components/requestBodies/${name}` };
    }
  }
  for (const name of inline) delete schemas[name];
  const left = JSON.stringify({ paths, schemas });
  for (const name of inline) {
    if (left.includes(`"${SCHEMA_REF}${name}"`)) throw new Error(`schema ${name} is a request body and is referenced elsewhere`);
  }
  return bodies;
}
