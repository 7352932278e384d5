import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${ownerPid}. Only one process may open the embedded database; ` +
        'stop that process, point DATA_DIR elsewhere, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): void;
  /** The pid of a dead owner whose stale lock this process took over (it was killed or crashed). */
  readonly recoveredFrom: number | undefined;
}

/**
 * An exclusive lock file holding the owner's pid. The file appears atomically with the pid already in
 * it (written to a private file, then hard-linked into place), so a second process never sees an empty
 * lock. A lock whose owner is dead (a crash) is taken over by renaming it aside first; the rename is
 * atomic, and a process that moved a live lock by mistake puts it back.
 *
 * The lock is released on every exit path this process can run code on: `release()` after a clean close,
 * and the process's `exit` event otherwise (a forced exit after the shutdown deadline, process.exit
 * anywhere, an uncaught exception). Only SIGKILL (or a power cut) leaves it behind, and the next start
 * takes it over because its owner is dead, reporting `recoveredFrom`.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'gateway.lock');
  const unique = () => `${process.pid}.${randomBytes(6).toString('hex')}`;
  const candidate = path.join(dataDir, `gateway.lock.${unique()}`);
  writeFileSync(candidate, String(process.pid), { mode: 0o600 });
  let recoveredFrom: number | undefined;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(candidate, lockPath);
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          process.removeListener('exit', release);
          if (readOwner(lockPath) === process.pid) rmSync(lockPath, { force: true });
        };
        process.on('exit', release);
        return { release, recoveredFrom };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(lockPath);
      if (owner === undefined) continue; // removed between our link and our read: try again
      if (owner === process.pid || isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
      const aside = path.join(dataDir, `gateway.lock.stale.${unique()}`);
      try {
        renameSync(lockPath, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another process took it over
        throw error;
      }
      const moved = readOwner(aside);
      if (moved !== owner && moved !== undefined && isAlive(moved)) {
        // We moved a lock a live process had just taken: put it back and report it.
        try {
          linkSync(aside, lockPath);
        } finally {
          rmSync(aside, { force: true });
        }
        throw new DataDirLockedError(dataDir, moved);
      }
      rmSync(aside, { force: true });
      recoveredFrom = owner;
    }
    throw new Error(`Could not lock DATA_DIR ${dataDir}`);
  } finally {
    rmSync(candidate, { force: true });
  }
}

function readOwner(lockPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs (one of another user's counts: signalling it is refused, not absent). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
