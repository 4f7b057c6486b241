// An operation's HTTP method (as an OpenAPI path item key) and success status, from the one table of
// operations (compiler/query/operations.ts), so the documents say what the router and response do.
import { OPERATIONS, type OperationName } from '../query/operations.ts';

export const verb = (op: OperationName) => OPERATIONS[op].method.toLowerCase();
export const status = (op: OperationName) => String(OPERATIONS[op].status);
