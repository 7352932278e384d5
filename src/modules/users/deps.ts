import type { Logger } from 'pino';
import type { Kdb } from '../../db/database.js';
import type { SessionManager } from '../../http/session.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { Urls } from '../../shared/urls.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import type { OrganizationDirectory } from '../organizations/types.js';

/** What the users module's use cases are given: the factory binds it to each of them. */
export type UserServiceDeps = {
  db: Kdb;
  clock: Clock;
  urls: Urls;
  box: SecretBox;
  audit: AuditLog;
  mailer: EmailService;
  sessions: SessionManager;
  logger: Logger;
  /** The organization of an account: read through the organizations module, never its tables. */
  organizations: OrganizationDirectory;
};
