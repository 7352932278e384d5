import { appendFileSync, readFileSync } from 'node:fs';
import type { Database } from '../../src/db/database.js';
import { statementRecorder } from './statements.js';

/**
 * The release's statements (docs/operations.md, "Zero-downtime migrations"): every distinct SQL text the
 * gateway sends, recorded while test files run with `RECORD_STATEMENTS_TO=<file>` (`npm run
 * record:statements` at a release), one JSON string per line, and replayed by
 * test/migration-compat.test.ts against the newest schema until the next release records them again.
 */
export const RECORD_STATEMENTS_ENV = 'RECORD_STATEMENTS_TO';
export const RELEASE_STATEMENTS_FILE = 'test/fixtures/release-statements.ndjson';

const seen = new Set<string>();

/** `database` recording its statements to RECORD_STATEMENTS_TO's file, or unchanged when it is unset. */
export function recordingStatements(database: Database): Database {
  const file = process.env[RECORD_STATEMENTS_ENV]?.trim();
  if (!file) return database;
  const recorder = statementRecorder({
    onCapture(statement) {
      recorder.captured.length = 0;
      if (seen.has(statement.sql)) return;
      seen.add(statement.sql);
      // One short append per new text: several test workers write the same file safely (O_APPEND).
      appendFileSync(file, `${JSON.stringify(statement.sql)}\n`);
    },
  });
  recorder.recording = true;
  // Through `track`: a precompiled statement (ADR 0060) is sent as its text, past the plugin.
  return { ...database, db: recorder.track(database.db) };
}

/** The recorded statements of the last release, without duplicates. */
export function releaseStatements(file = RELEASE_STATEMENTS_FILE): string[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return [...new Set(lines.map((line) => JSON.parse(line) as string))];
}
