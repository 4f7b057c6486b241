// matchProjectStakeholder: the row's project (itself, its parent chain, or the record `via` references) is one the
// caller owns or is a member of.
import { checkVia, reachesProject } from '../../model/checks/scenarios.ts';
import { movable, stakeholderCall } from '../rules.ts';
import { defineRule } from './def.ts';

export const matchProjectStakeholder = defineRule<{ type: 'matchProjectStakeholder'; via?: string }>({
  kind: 'data',
  summary: "records of a project the caller owns or is a member of",
  schema: { additionalProperties: false, properties: { type: { const: 'matchProjectStakeholder' }, via: { $ref: '#/definitions/propertyName' } } },
  check({ ctx, rule, at, entityName, entity, onEntity }) {
    const projects = ctx.model.api.projects;
    if (!projects) return ctx.fail(at, 'Projects', 'matchProjectStakeholder needs api.projects');
    if (rule.via) return checkVia(ctx, rule.via, `${at}/via`, entityName, entity, projects.entity);
    if (!reachesProject(ctx, entityName, projects.entity)) {
      ctx.fail(at, 'Projects', `${entityName} is not ${projects.entity} and has no parent chain up to it${onEntity}`);
    }
  },
  sql: (rule, ctx, mode) => movable(mode, ctx, stakeholderCall(ctx, rule.via)),
});
