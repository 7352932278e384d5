import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database, Kdb } from './db/database.js';
import { createIdempotencyStore, type IdempotencyStore } from './http/idempotency-store.js';
import { createSessionManager, type SessionManager } from './http/session.js';
import { createApplicationService, type ApplicationService } from './modules/applications/service.js';
import { createAuditLog, type AuditLog } from './modules/audit/service.js';
import { createMailer, type Mailer } from './modules/email/service.js';
import { createUserService, type UserService } from './modules/users/service.js';
import type { Clock } from './shared/clock.js';
import {
  createSecretBox,
  generateEncryptionKeys,
  parseEncryptionKeys,
  type SecretBox,
} from './shared/secret-box.js';

/** Public base URLs of the listeners, as the outside world reaches them. */
export interface Urls {
  web(): string;
  sandboxApi(): string;
  liveApi(): string;
  operator(): string;
}

export interface Services {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Kdb;
  urls: Urls;
  box: SecretBox;
  idempotencyStore: IdempotencyStore;
  sessions: SessionManager;
  audit: AuditLog;
  mailer: Mailer;
  applications: ApplicationService;
  users: UserService;
}

/** The one place where services are created, each with its dependencies named. */
export function createServices(input: {
  database: Database;
  clock: Clock;
  config: Config;
  logger: Logger;
  urls: Urls;
  box: SecretBox;
}): Services {
  const { database, clock, config, logger, urls, box } = input;
  const db = database.db;
  const sessions = createSessionManager({ db, clock, secureCookies: config.nodeEnv === 'production' });
  const audit = createAuditLog({ clock });
  const mailer = createMailer({ db, clock, box, smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  return {
    config,
    logger,
    clock,
    db,
    urls,
    box,
    idempotencyStore: createIdempotencyStore(db),
    sessions,
    audit,
    mailer,
    applications: createApplicationService({ db, clock }),
    users: createUserService({ db, clock, urls, box, audit, mailer, sessions }),
  };
}

/**
 * ENCRYPTION_KEYS when set (required in production); otherwise a key generated once and kept in
 * DATA_DIR/encryption-keys (mode 0600), so a development database stays readable across restarts.
 */
export function resolveSecretBox(config: Config): SecretBox {
  if (config.encryptionKeys) return createSecretBox(config.encryptionKeys);
  const file = path.join(config.dataDir, 'encryption-keys');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${generateEncryptionKeys()}\n`, { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return createSecretBox(parseEncryptionKeys(readFileSync(file, 'utf8').trim()));
}
