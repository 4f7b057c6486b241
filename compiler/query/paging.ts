// Paging and the reserved query parameters of lists, defined once for the gateway, the SQL engine
// (lib.page, lib.per_page, written by the compiler) and the generated API documents.

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
/** The largest page number (PostgreSQL's integer). */
export const MAX_PAGE = 2_147_483_647;

/** How a list finds meta.total: count every match (the default, spec 5.2), an estimate scaled from a sample of the matches, or not at all. */
export const COUNT_MODES = ['exact', 'estimated', 'none'] as const;
export type CountMode = (typeof COUNT_MODES)[number];
/** count=estimated counts exactly under this many matches (estimated from a sample of about 20 times as many rows). */
export const ESTIMATE_EXACT_BELOW = 1000;
/** Characters of an `after`/`before` cursor the gateway accepts (a cursor of ours is far shorter). */
export const MAX_CURSOR_LENGTH = 4096;

/**
 * The member of a page's result, just before its `data`, that gives the byte length of the rows' JSON text: the
 * gateway takes the rows by it and sends them on without reading them through (server/query/result-data.ts).
 */
export const DATA_BYTES = 'data_bytes';

/** Query parameters of a list that are not filters. */
export const RESERVED_PARAMS = ['page', 'per_page', 'after', 'before', 'count', 'sort', 'include', 'exclude', 'permanent'] as const;
