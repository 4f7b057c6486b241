// The manifest: what the compiled database tells the gateway about the API (api.manifest()), and
// the calling protocol of the api.* functions. The gateway knows entities only through this.
//
// PROTOCOL. Every request is ONE statement, so one round trip and one transaction:
//   SELECT api.dispatch(role text, claims jsonb, ip text, fn text, args jsonb) -> jsonb
// dispatch sets the role (`anon` | `authenticated`) and the transaction-local settings
// request.jwt.claims / request.ip, then runs api.<fn>(args). Every api.* function takes one jsonb
// argument and returns jsonb. Refusals are SQLSTATEs: PT400, PT401, PT403, PT404, PT409, PT412,
// PT422 (message = problem detail; DETAIL = JSON: {"property","rule"} or {"errors":[…]}), plus
// PostgreSQL's own (23505, 23514, 23502, 23503, 42501, 22xxx, …) mapped by the gateway.
//
// Arguments and results per function kind (ResourceManifest.functions gives the names):
//   list, search  {filter?: FilterNode, sort?: SortKey[], page: number, per_page: number, parent?: string}
//                 -> {data: Row[], meta: {total, page, per_page}}
//   read          {id: string, parent?: string}            -> Single
//   create        {body: object, parent?: string}          -> Single  (Single.id is the new key)
//   replace       {id, body, parent?}                      -> Single  (PUT: omitted writable properties reset to default/null)
//   patch         {id, body, parent?}                      -> Single  (JSON properties merged per RFC 7396)
//   delete        {id, parent?, permanent?: boolean}        -> {}      (soft delete where softDelete, unless permanent)
//   restore       {id, parent?}                            -> Single
//   stream        {filter?, parent?, after_tx, after_id, before, limit} -> {data: Event[], last: "tx-id", read: number}
//                 (without `before`: only the list's checks -> {data: []})
//   history       {id, parent?, version?, page, per_page}  -> {data: Entry[], meta} | {data: Entry} with version
//                 (Entry: {version, etag, action, at, by, data}; 404 for no such version)
//   relation list {id, page, per_page}                     -> {data: Row[] (each with `edge`), meta}
//   link          {id, target: string, body: object}        -> {data: Row (the edge), created: boolean}
//   unlink        {id, target: string}                     -> {}
//   sub read      {id}                                     -> Single  (all null properties when never written)
//   sub replace   {id, body}                               -> Single
// `parent` is the parent record's key for nested paths: the parent must exist (else PT404) and the
// record must belong to it. Ids travel as text and are cast to the key's type in SQL.
//
// Single = {data: Row, id: string, etag: string, last_modified: string (ISO 8601)}. Rows never hold
// Password, writeOnly or system columns (_rev, _modified_at, deleted_at).

import type { JsonCast, PropertyType } from '../model/types.ts';
import type { FilterOp } from '../query/operators.ts';
import type { FileModuleName } from '../modules/index.ts';

export type FilterNode =
  | { and: FilterNode[] }
  | { or: FilterNode[] }
  | { not: FilterNode }
  | { field: string; op: FilterOp; value: unknown };

/** `field` is a property name, or a dot path into a JSON property (`meta.address.city`). */
export type { FilterOp } from '../query/operators.ts';
export { FILTER_OPS } from '../query/operators.ts';

export interface SortKey {
  field: string;
  desc: boolean;
}

/**
 * The version of the calling protocol and engine a compiled database speaks. A gateway serves only a
 * database of its own version (`serve` refuses another); raise it when the api.* protocol changes, or the gateway
 * needs what only a newer engine has (3: the change log's readers, the streams' pages, webhook delivery state).
 */
export const ENGINE_VERSION = 3;

export interface Manifest {
  /** ENGINE_VERSION of the compiler that wrote the database (absent before version 2). */
  engine?: number;
  api: {
    slug: string;
    version: string;
    title: string;
    description?: string;
    docsUrl: string;
    /** /api/<slug>/<version> */
    basePath: string;
  };
  /** By entity name. */
  resources: Record<string, ResourceManifest>;
  /** Sign-in (api.identity): the user entity, when the model names one; its functions are AUTH_FUNCTIONS. */
  identity?: { entity: string; collection: string };
}

/**
 * The sign-in functions (design 8), compiled when the model has `api.identity`; each returns a result, never
 * raises for a refusal, so that counted attempts and revocations commit:
 *   token   {email, password, settings} -> Claims & {refresh_token} | {error: 'invalid'} | {error: 'limited', retry_after}
 *   refresh {refresh_token, settings}   -> Claims & {refresh_token} | {error: 'invalid' | 'reused'}
 *   logout  {refresh_token}             -> {}
 * Claims = {sub, email, roles, org?, org_roles?}; settings = AuthSettings (server/auth/settings.ts).
 */
export const AUTH_FUNCTIONS = { token: 'auth_token', refresh: 'auth_refresh', logout: 'auth_logout' } as const;

export interface ResourceManifest {
  entity: string;
  collection: string;
  table: string;
  primaryKey: string;
  softDelete: boolean;
  /** Name of the Version property, when there is one (the ETag is then its value). */
  versionProperty?: string;
  parent?: { entity: string; property: string };
  properties: Record<string, PropertyManifest>;
  relations: Record<string, RelationManifest>;
  /** What `include=<name>` embeds (compiler/query/embeds.ts). */
  embeds?: Record<string, EmbedManifest>;
  /** api.* function name per action. */
  functions: {
    list: string; search: string; read: string; create: string; replace: string; patch: string;
    delete: string; restore?: string;
    /** The change stream's page (design 9): GET of the list URL with Accept: text/event-stream. */
    stream: string;
    /** Record history (design 9): the versions of a record, or one of them; only for entities that keep history. */
    history?: string;
  };
  /**
   * JSON Schemas (draft-07, ajv's default) of the request bodies, for ajv in the gateway; `read` describes a returned
   * record (for the generated API specifications, not checked at run time). A property schema the three bodies share
   * is written once in `$defs` and named `{"$ref": "#/$defs/<name>"}` in each: read a body through `bodySchemaOf`
   * (compiler/manifest/schemas.ts), which puts them back.
   */
  schemas: { $defs?: Record<string, object>; create: object; replace: object; patch: object; read: object };
  description?: string;
  /** Managed constraint name -> the property and rule it enforces (for 409/422 details). */
  constraints: Record<string, { property: string; rule: string }>;
}

/**
 * An embed: a referenced record (`property`: the reference's wire name), the records a manyToMany
 * `relation` links (a list, each with `edge`), or a oneToOne `relation`'s sub-resource. `target` names the
 * embedded entity, whose own embeds nest below (`site.region`); a sub-resource nests nothing.
 */
export type EmbedManifest =
  | { kind: 'reference'; target: string; property: string }
  | { kind: 'manyToMany'; target: string; relation: string }
  | { kind: 'oneToOne'; relation: string };

/**
 * A property as the gateway and the API documents see it. The boolean flags are written only when true: an
 * absent flag is false (`{"type": "String", "required": true}`), so every reader tests them as truthy.
 */
export interface PropertyManifest {
  type: PropertyType;
  multiple?: boolean;
  required?: boolean;
  primary?: boolean;
  readOnly?: boolean;
  immutable?: boolean;
  /** Never returned (writeOnly or Password). */
  writeOnly?: boolean;
  searchIndexed?: boolean;
  /** Properties the response must not show in generated specs (web.hidden); still returned. */
  hidden?: boolean;
  enum?: string[];
  /** `fileTypes`, the types accepted: web.fileTypes, else allowedMimeTypes, else `image/*` for an ImageURL (absent: any type). */
  file?: { module: FileModuleName; maxSizeInBytes?: number; allowedMimeTypes?: string[]; fileTypes?: string[] };
  /** JSON properties: Tier B casts by dot path (below the property). */
  casts?: Record<string, JsonCast>;
  /**
   * The column, when web.name gives the property another name on the wire (the key of this entry):
   * the gateway speaks the wire name to clients and the column's to SQL.
   */
  column?: string;
  /**
   * web.format, or the one the column type implies (Version: int32, a readOnly Number key: int64). The gateway
   * checks an int64 body value against the column's range exactly (a double rounds 2^63 into it).
   */
  format?: NumberFormat;
  // For the generated API specifications only (the gateway ignores these):
  /** Not readOnly, but set by the server whatever a body says (a timestamp or Owner module): left out of write bodies. */
  serverSet?: true;
  description?: string;
  deprecated?: boolean;
  defaultValue?: unknown;
}

export type NumberFormat = 'int32' | 'int64' | 'float' | 'double';

/** Linked records carry their edge properties in `edge`, which filters and projections name like a read-only JSON property. */
export const EDGE_PROPERTY: PropertyManifest = { type: 'JSON', readOnly: true };

export type RelationManifest =
  | {
      kind: 'manyToMany';
      target: string;
      table: string;
      functions: { list: string; link: string; unlink: string };
      /** Key columns of the join: the owner's and the target's (they name the link result's keys). */
      ownerColumn: string;
      targetColumn: string;
      /** Edge property name -> allowed values (absent: free text). */
      edge: Record<string, { enum?: string[] }>;
      schemas: { link: object };
    }
  | {
      kind: 'oneToOne';
      table: string;
      functions: { read: string; replace: string };
      /** The sub-resource's key column: the owner's key. */
      ownerColumn: string;
      properties: Record<string, PropertyManifest>;
      schemas: { replace: object; read: object };
    };
