export { createDatabaseFileStorage } from './database-storage.js';
export type { FileAttachError, FileError } from './errors.js';
export { fileRoutes } from './routes.js';
export { createFileService, type FileService } from './service.js';
export {
  MAX_DISPUTE_FILES_BYTES,
  MAX_FILE_BYTES,
  type FileContents,
  type FileKey,
  type FileStorage,
  type FileView,
  type UploadInput,
} from './types.js';
