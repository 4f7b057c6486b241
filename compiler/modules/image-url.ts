// ImageURL: a stored file that is an image unless the model names other types (spec 2.4 names it apart from FileURL).
import { fileModule } from './file.ts';

export const ImageURL = fileModule('a stored image (image/* unless allowedMimeTypes or web.fileTypes say otherwise)', ['image/*']);
