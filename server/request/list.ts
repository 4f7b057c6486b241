// The list query of GET /<collection>: filters (ANDed), sort, paging and projection read from the
// parsed query string and checked against the resource's properties.
import type { FilterNode, PropertyManifest } from '../../compiler/manifest/types.ts';
import { condition } from './filter.ts';
import { parsePaging, parseProjection, parseSort } from './listing.ts';
import { resolvePath } from './paths.ts';
import type { RawQuery } from './query.ts';
import type { SearchRequest } from './search.ts';

export function parseListQuery(query: RawQuery, props: Record<string, PropertyManifest>, schemaOf: (property: string) => unknown, embeds: string[] = []): SearchRequest {
  const conditions: FilterNode[] = query.filters.map((term) => {
    const where = `filter "${term.param}"`;
    const target = resolvePath(props, term.path, 'filter', where);
    return condition(target, term.op, term.value, true, where, schemaOf(target.property));
  });
  const filter = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : { and: conditions };
  const { reserved } = query;
  return {
    ...(filter ? { filter } : {}),
    ...parsePaging(reserved),
    sort: parseSort(reserved.sort, props),
    projection: parseProjection(reserved.include, reserved.exclude, props, embeds),
  };
}
