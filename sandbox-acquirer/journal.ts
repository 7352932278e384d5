import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type {
  Challenge,
  IdempotencyRecord,
  NotificationRecord,
  PlannedDispute,
  Refund,
  StoredDispute,
  StoredPayment,
} from './model.js';

/** One line of the journal: the full new state of one record. The last line of a record wins. */
export type JournalEntry =
  | { kind: 'payment'; data: StoredPayment }
  | { kind: 'refund'; data: Refund }
  | { kind: 'challenge'; data: Challenge }
  | { kind: 'idempotency'; data: IdempotencyRecord }
  | { kind: 'notification'; data: NotificationRecord }
  | { kind: 'dispute'; data: StoredDispute }
  | { kind: 'planned_dispute'; data: PlannedDispute };

/** Where mutations go: an append-only JSON Lines file, or nowhere. */
export interface Journal {
  append(entry: JournalEntry): void;
  close(): void;
}

const KINDS = new Set([
  'payment',
  'refund',
  'challenge',
  'idempotency',
  'notification',
  'dispute',
  'planned_dispute',
]);

/** A journal that keeps nothing: the acquirer is memory only. */
export function memoryJournal(): Journal {
  return { append: () => undefined, close: () => undefined };
}

/**
 * Opens (creating it when missing) a journal file and reads what it holds. Writes are synchronous, so a
 * mutation is on disk (in the OS) before the request that made it is answered.
 */
export function openFileJournal(file: string, logger: Logger): { journal: Journal; entries: JournalEntry[] } {
  mkdirSync(dirname(file), { recursive: true });
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const entries = parseJournal(text, logger);
  const fd = openSync(file, 'a', 0o600);
  // A crash in the middle of a write leaves a partial last line: start the next one on a line of its own.
  if (text.length > 0 && !text.endsWith('\n')) writeSync(fd, '\n');
  let open = true;
  const journal: Journal = {
    append(entry) {
      if (!open) {
        logger.warn({ kind: entry.kind }, 'sandbox acquirer: journal write after close ignored');
        return;
      }
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
  return { journal, entries };
}

/** The entries of a journal's text; unreadable lines (a torn last write) are skipped with a warning. */
export function parseJournal(text: string, logger: Logger): JournalEntry[] {
  const entries: JournalEntry[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const entry = parseLine(line);
    if (entry) entries.push(entry);
    else logger.warn({ line: index + 1 }, 'sandbox acquirer: unreadable journal line skipped');
  });
  return entries;
}

function parseLine(line: string): JournalEntry | null {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return null;
    const { kind, data } = value as { kind?: unknown; data?: unknown };
    if (typeof kind !== 'string' || !KINDS.has(kind) || typeof data !== 'object' || data === null)
      return null;
    return value as JournalEntry;
  } catch {
    return null;
  }
}
