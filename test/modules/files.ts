// The model both file modules' tests install (the uploads themselves are test/files/*).
import { moduleModel } from './support.ts';

export const fileModel = moduleModel('filemods', {
  Doc: {
    collection: 'docs',
    properties: {
      id: { type: 'String', primary: true },
      attachment: { type: 'String', modules: { FileURL: { maxSizeInBytes: 1000, allowedMimeTypes: ['application/pdf'] } } },
      scan: { type: 'Binary', modules: { FileURL: {} } },
      photo: { type: 'String', modules: { ImageURL: {} } },
      logo: { type: 'String', modules: { ImageURL: { allowedMimeTypes: ['image/png'] } } },
    },
  },
});
