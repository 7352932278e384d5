import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import { insertKeyRequests, type KeyRequestEntry } from './repository.js';

export type { KeyRequestEntry };

export interface KeyRequestLog {
  /** Queues the entry; it reaches the database with the next batch. Never throws, never waits. */
  record(entry: KeyRequestEntry): void;
  /** Writes what is queued (one multi-row INSERT per batch). */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export const REQUEST_LOG_FLUSH_MS = 1000;
const BATCH_SIZE = 500;
/** Past this many queued entries (a database outage), the oldest are dropped and counted in the log. */
const MAX_QUEUED = 50_000;

/**
 * The per-key request log written off the request path: entries are queued in
 * memory and inserted in batches every second (or as soon as a batch is full), so a request costs no
 * database round trip. What a crash loses is at most the last second of entries; the log is an activity
 * trail, not the record of any write (the rows written carry their key themselves).
 */
export function createKeyRequestLog(deps: { db: Kdb; logger: Logger; flushMs?: number }): KeyRequestLog {
  const { db, logger } = deps;
  let queue: KeyRequestEntry[] = [];
  let flushing: Promise<void> | undefined;
  let dropped = 0;

  const writeQueued = async () => {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH_SIZE);
      try {
        await insertKeyRequests(db, batch);
        queue = queue.slice(batch.length);
      } catch (error) {
        logger.warn({ err: error, queued: queue.length }, 'could not write the API-key request log');
        return;
      }
    }
    if (dropped > 0) {
      logger.warn({ dropped }, 'API-key request log entries dropped while the database was unavailable');
      dropped = 0;
    }
  };

  const flush = (): Promise<void> => {
    flushing ??= writeQueued().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), deps.flushMs ?? REQUEST_LOG_FLUSH_MS);
  timer.unref();

  return {
    record(entry) {
      queue.push(entry);
      if (queue.length > MAX_QUEUED) {
        queue.shift();
        dropped++;
      }
      if (queue.length >= BATCH_SIZE && flushing === undefined) void flush();
    },
    async flush() {
      await flushing;
      await flush();
    },
    async close() {
      clearInterval(timer);
      await flushing;
      await flush();
    },
  };
}
