// What FileURL and ImageURL share (spec 2.7): a stored file's block in a jsonb column, claimed by the file
// triggers (compiler/sql/files.ts), uploaded through intents and read back with a signed link.
import { mimeListAccepts } from '../model/mime.ts';
import type { ModuleDef } from './def.ts';

export interface FileOptions {
  maxSizeInBytes?: number;
  allowedMimeTypes?: string[];
}

export type FileModuleDef = ModuleDef<FileOptions> & { file: { defaultTypes?: string[] } };

/** A file module; `defaultTypes`: what it accepts when the model names no types (undefined: any). */
export function fileModule(summary: string, defaultTypes?: string[]): FileModuleDef {
  return {
    summary,
    options: {
      type: 'object', additionalProperties: false,
      properties: { maxSizeInBytes: { type: 'integer', minimum: 1 }, allowedMimeTypes: { $ref: '#/definitions/mimeTypes' } },
    },
    file: defaultTypes ? { defaultTypes } : {},
    check({ module, p, options, fail }) {
      if (p.type !== 'String' && p.type !== 'Binary') fail('File Module', `${module} applies to String or Binary properties, not ${p.type}`, 'modules');
      if (p.multiple || p.unique || p.indexed || p.searchIndexed || p.enum || p.pattern || p.defaultValue !== undefined) {
        fail('File Module', 'a file property cannot be multiple, unique, indexed, searchIndexed or carry enum, pattern or defaultValue');
      }
      const allowed = options.allowedMimeTypes;
      if (allowed) for (const t of p.web?.fileTypes ?? []) if (!mimeListAccepts(allowed, t)) fail('Web Binding', `fileTypes lists "${t}" which allowedMimeTypes does not allow`, 'web/fileTypes');
    },
    constraints({ col, check }) {
      check('file', `lib.is_file_block(${col})`);
    },
  };
}
