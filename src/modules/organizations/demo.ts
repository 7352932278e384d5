import type { OwnerAccounts } from './types.js';
import type { ApplicationReview } from '../applications/service.js';
import { randomBytes } from 'node:crypto';
import type { Kdb } from '../../db/database.js';
import type { FeatureFlag, KycStatus } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { ok, type Result } from '../../shared/result.js';
import type { AuditLog } from '../audit/service.js';
import { issueApiKey } from '../api-keys/issue.js';
import type { OrganizationError } from './errors.js';
import type { OrganizationAdminService, UnderwritingService } from './service.js';
import type { Actor } from './types.js';

export interface DemoMerchant {
  organizationId: string;
  applicationId: string;
  kycStatus: KycStatus;
  featureFlags: FeatureFlag[];
  dashboard: { url: string; email: string; password: string };
  keys: { sandbox: string; live: string };
}

/**
 * A ready merchant for local development and scripts: an application filed and approved through the
 * real underwriting path, the owner activated with a generated password, and the first live key issued
 * as the activation link would have done.
 */
export async function createDemoMerchant(
  deps: {
    db: Kdb;
    clock: Clock;
    audit: AuditLog;
    underwriting: UnderwritingService;
    users: Pick<OwnerAccounts, 'activateWithPassword'>;
    applications: Pick<ApplicationReview, 'file' | 'withdrawNew'>;
    organizations: OrganizationAdminService;
    webUrl: () => string;
  },
  input: { companyName?: string; email?: string; kycStatus?: KycStatus; flags?: FeatureFlag[] },
  by: Actor,
): Promise<Result<DemoMerchant, OrganizationError>> {
  const { db, clock } = deps;
  const suffix = randomBytes(4).toString('hex');
  const email = input.email ?? `demo-${suffix}@merchant.example`;
  const now = clock.now();
  const applicationId = newId('app', now);
  await deps.applications.file({
    id: applicationId,
    status: 'NEW',
    company_name: input.companyName ?? `Demo Merchant ${suffix}`,
    jurisdiction: 'TR',
    vertical: 'other',
    vertical_other: 'Demo merchant for local development',
    monthly_volume_usd: 100_000n,
    current_acquirer: null,
    why_switching: null,
    contact_name: 'Demo Owner',
    contact_email: email,
    telegram: null,
    submitted_ip: null,
    created_at: now,
    updated_at: now,
  });
  let approved: Awaited<ReturnType<UnderwritingService['approve']>> | undefined;
  try {
    approved = await deps.underwriting.approve(applicationId, by);
  } finally {
    // The approval refused or failed (say, the address already has a dashboard account): take back the
    // application filed above, or it would wait in the underwriting queue as if a merchant had applied.
    if (!approved?.ok) await deps.applications.withdrawNew(applicationId);
  }
  if (!approved.ok) return approved;
  const approval = approved.value;
  const password = `demo-${randomBytes(12).toString('base64url')}`;

  const liveKey = await db.transaction().execute(async (trx) => {
    await deps.users.activateWithPassword(trx, { userId: approval.ownerUserId, password });
    const key = await issueApiKey(trx, clock, {
      organizationId: approval.organization.id,
      environment: 'live',
      scopes: ['all'],
      name: 'First live key',
      createdBy: 'system',
    });
    await deps.audit.record(trx, {
      ...by,
      action: 'organization.demo_created',
      targetType: 'organization',
      targetId: approval.organization.id,
      organizationId: approval.organization.id,
      after: { ownerUserId: approval.ownerUserId, liveKeyId: key.id, sandboxKeyId: approval.sandboxKey.id },
    });
    return key;
  });

  let organization = approval.organization;
  if (input.kycStatus && input.kycStatus !== organization.kycStatus) {
    const set = await deps.organizations.setKycStatus(organization.id, input.kycStatus, by);
    if (!set.ok) return set;
    organization = set.value;
  }
  for (const flag of input.flags ?? []) {
    const set = await deps.organizations.setFeatureFlag(organization.id, flag, true, by);
    if (!set.ok) return set;
    organization = set.value;
  }
  return ok({
    organizationId: organization.id,
    applicationId,
    kycStatus: organization.kycStatus,
    featureFlags: organization.featureFlags,
    dashboard: { url: `${deps.webUrl()}/login`, email, password },
    keys: { sandbox: approval.sandboxKey.secret, live: liveKey.secret },
  });
}
