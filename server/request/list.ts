// The list query of GET /<collection>: filters (ANDed), sort, paging and projection read from the
// parsed query string and checked against the resource's properties.
import type { FilterNode, PropertyManifest } from '../../compiler/manifest/types.ts';
import { condition, filterPath, through, type References } from './filter.ts';
import { parsePaging, parseProjection, parseSort } from './listing.ts';
import type { RawQuery } from './query.ts';
import { joinedArg, type SearchRequest } from './search.ts';

export function parseListQuery(query: RawQuery, props: Record<string, PropertyManifest>, schemaOf: (property: string) => unknown,
  embeds: string[] = [], references: References = {}): SearchRequest {
  const joined = new Set<string>();
  const conditions: FilterNode[] = query.filters.map((term) => {
    const where = `filter "${term.param}"`;
    const { target, schema, via } = filterPath(props, schemaOf, references, term.path, where, joined);
    return through(condition(target, term.op, term.value, true, where, schema), via);
  });
  const filter = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : { and: conditions };
  const { reserved } = query;
  return {
    ...(filter ? { filter } : {}),
    ...joinedArg(joined),
    ...parsePaging(reserved),
    sort: parseSort(reserved.sort, props),
    projection: parseProjection(reserved.include, reserved.exclude, props, embeds),
  };
}
