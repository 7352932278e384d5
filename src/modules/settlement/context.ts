import type { BatchDeps } from './batch-types.js';
import type { BusinessCalendar, BusinessDate } from '../../shared/business-calendar.js';
import type { createChunkSettler } from './chunk.js';

/** The batch's dependencies with their defaults resolved: what each use case takes first. */
export interface BatchContext extends BatchDeps {
  calendar: BusinessCalendar;
  cutoffOf: (businessDate: BusinessDate) => Date;
  concurrency: number;
  chunks: ReturnType<typeof createChunkSettler>;
}
