// Shared plumbing for the domain checks: where errors are collected and how a check reports one.
// Each check module walks one part of the model and calls `ctx.fail(pointer, rule, message)`.
import type { ModelError } from '../errors.ts';
import type { Model } from '../types.ts';

export class CheckContext {
  readonly errors: ModelError[] = [];
  constructor(readonly model: Model) {}
  fail(pointer: string, rule: string, message: string): void {
    this.errors.push({ pointer, rule, message });
  }
}
