// Model errors: every problem names the JSON pointer into the model and the spec rule it breaks.
// A model is rejected with all its errors at once, so an author fixes them in one pass.

export interface ModelError {
  /** RFC 6901 pointer into the model file, e.g. /entities/Post/properties/version */
  pointer: string;
  /** The rule broken, e.g. "Semantic Data Alignment" or "Unknown module". */
  rule: string;
  message: string;
}

export function formatModelError(e: ModelError): string {
  return `${e.rule}: ${e.message} at ${e.pointer || '/'}`;
}

export class ModelValidationError extends Error {
  constructor(readonly errors: ModelError[]) {
    super(`The model has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n` +
      errors.map((e) => `  - ${formatModelError(e)}`).join('\n'));
    this.name = 'ModelValidationError';
  }
}

/** Builds a JSON pointer from path segments, escaping ~ and / per RFC 6901. */
export function pointer(...segments: Array<string | number>): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
