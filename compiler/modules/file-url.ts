// FileURL: a stored file of any type (or the types allowedMimeTypes / web.fileTypes name).
import { fileModule } from './file.ts';

export const FileURL = fileModule('a stored file: upload intent, signed download link');
