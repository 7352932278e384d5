import type { Kdb } from '../../db/database.js';
import type { ApplicationRow } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { CursorCodec } from '../../shared/pagination.js';
import type { Urls } from '../../shared/urls.js';
import type { IssuedApiKey } from '../api-keys/issue.js';
import type { ApplicationReview } from '../applications/service.js';
import type { AuditLog } from '../audit/service.js';
import type { EmailService } from '../email/service.js';
import type { Organization, OwnerAccounts } from './types.js';

export interface ApprovalResult {
  organization: Organization;
  ownerUserId: string;
  ownerEmail: string;
  sandboxKey: IssuedApiKey;
  activationUrl: string;
  emailId: string;
}

export interface ApplicationPage {
  data: ApplicationRow[];
  nextCursor: string | null;
}

export interface UnderwritingDeps {
  db: Kdb;
  clock: Clock;
  audit: AuditLog;
  mailer: EmailService;
  urls: Urls;
  cursors: CursorCodec;
  users: Pick<OwnerAccounts, 'createOwnerUser' | 'createActivation' | 'hasAccount'>;
  /** The applications module's review interface: underwriting never queries its table. */
  applications: ApplicationReview;
}
