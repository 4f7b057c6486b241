// Paging and the reserved query parameters of lists, defined once for the gateway, the SQL engine
// (lib.page, lib.per_page, written by the compiler) and the generated API documents.

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;
/** The largest page number (PostgreSQL's integer). */
export const MAX_PAGE = 2_147_483_647;

/** Query parameters of a list that are not filters. */
export const RESERVED_PARAMS = ['page', 'per_page', 'sort', 'include', 'exclude', 'permanent'] as const;
