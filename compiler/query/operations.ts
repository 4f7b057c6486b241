// The operations of the HTTP API, defined once: method, path shape, the access action it is judged as,
// its body, its query parameters and its success status. Read by the router and planner (server/plan),
// the response (server/response), the compiled api.* functions and the OpenAPI and RAML generators.
import type { ActionName } from '../model/types.ts';

/**
 * Where an operation lives: /c, /c/search, /c/bulk, /c/{id}, /c/{id}/restore, /c/{id}/{relation}, /c/{id}/{relation}/{target},
 * /c/{id}/history, /c/{id}/history/{version}.
 */
export type PathShape = 'collection' | 'search' | 'bulk' | 'item' | 'restore' | 'relation' | 'relationTarget' | 'history' | 'historyVersion';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type BodyKind = 'none' | 'optional' | 'required';

/** Query parameters besides filters an operation takes. */
export interface QueryAllowance {
  paging?: boolean;
  /** Keyset paging (after, before) and count modes. */
  cursor?: boolean;
  sort?: boolean;
  filters?: boolean;
  projection?: boolean;
  permanent?: boolean;
}

export interface Operation {
  method: Method;
  path: PathShape;
  /** For relation paths: the kind of relation it serves. */
  relation?: 'manyToMany' | 'oneToOne';
  /** The action of the (owning) entity whose scenarios judge it. */
  access: ActionName;
  body: BodyKind;
  query: QueryAllowance;
  /** The status of success (a link that already existed answers 200). */
  status: 200 | 201 | 204;
  /** Changes nothing: a read replica may serve it (DATABASE_READ_URL) when it carries no precondition. */
  reads?: true;
  /** Reads or writes one row, named by its key (or inserts one): short, so it may share a database connection (POOL_PIPELINE). */
  keyed?: true;
}

export const OPERATIONS = {
  list: { method: 'GET', path: 'collection', access: 'list', body: 'none', query: { paging: true, cursor: true, sort: true, filters: true, projection: true }, status: 200, reads: true },
  // An array body is taken here too (design: `POST /<collection>` with an array), answered as bulkCreate answers.
  create: { method: 'POST', path: 'collection', access: 'create', body: 'required', query: { projection: true }, status: 201, keyed: true },
  // Its own path, so that the documents give single and bulk create an operation each (a typed client's result is one type).
  bulkCreate: { method: 'POST', path: 'bulk', access: 'create', body: 'required', query: { projection: true }, status: 201 },
  search: { method: 'POST', path: 'search', access: 'search', body: 'optional', query: {}, status: 200, reads: true },
  read: { method: 'GET', path: 'item', access: 'read', body: 'none', query: { projection: true }, status: 200, reads: true, keyed: true },
  replace: { method: 'PUT', path: 'item', access: 'update', body: 'required', query: { projection: true }, status: 200, keyed: true },
  patch: { method: 'PATCH', path: 'item', access: 'update', body: 'required', query: { projection: true }, status: 200, keyed: true },
  delete: { method: 'DELETE', path: 'item', access: 'delete', body: 'none', query: { permanent: true }, status: 204, keyed: true },
  restore: { method: 'POST', path: 'restore', access: 'restore', body: 'none', query: { projection: true }, status: 200, keyed: true },
  relationList: { method: 'GET', path: 'relation', relation: 'manyToMany', access: 'read', body: 'none', query: { paging: true, projection: true }, status: 200, reads: true },
  link: { method: 'PUT', path: 'relationTarget', relation: 'manyToMany', access: 'link', body: 'optional', query: {}, status: 201, keyed: true },
  unlink: { method: 'DELETE', path: 'relationTarget', relation: 'manyToMany', access: 'unlink', body: 'none', query: {}, status: 204, keyed: true },
  subRead: { method: 'GET', path: 'relation', relation: 'oneToOne', access: 'read', body: 'none', query: { projection: true }, status: 200, reads: true, keyed: true },
  subReplace: { method: 'PUT', path: 'relation', relation: 'oneToOne', access: 'update', body: 'required', query: { projection: true }, status: 200, keyed: true },
  // Record history (design 9): judged as a read of the record, for entities that keep history.
  history: { method: 'GET', path: 'history', access: 'read', body: 'none', query: { paging: true }, status: 200, reads: true },
  historyVersion: { method: 'GET', path: 'historyVersion', access: 'read', body: 'none', query: {}, status: 200, reads: true, keyed: true },
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Longest Idempotency-Key a write takes (server/request/idempotency.ts). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Whether the operation only reads (a replica may serve it). */
export const onlyReads = (name: OperationName): boolean => (OPERATIONS[name] as Operation).reads === true;

/** Whether the operation reads or writes one row by its key (it may share a database connection). */
export const keyed = (name: OperationName): boolean => (OPERATIONS[name] as Operation).keyed === true;

/** The operations at a path shape (and relation kind), in the table's order (the router asks on every request). */
export function operationsAt(path: PathShape, relation?: 'manyToMany' | 'oneToOne'): readonly OperationName[] {
  const key = `${path} ${relation ?? ''}`;
  let found = AT.get(key);
  if (!found) {
    AT.set(key, found = OPERATION_NAMES.filter((n) => {
      const o: Operation = OPERATIONS[n];
      return o.path === path && o.relation === relation;
    }));
  }
  return found;
}
const AT = new Map<string, OperationName[]>();
