import { newId } from '../../shared/ids.js';
import { err, ok, type Result } from '../../shared/result.js';
import { issueApiKey } from '../api-keys/issue.js';
import { applicationApprovedEmail } from '../email/templates.js';
import type { OrganizationError } from './errors.js';
import { auditDecision, decided, onPending } from './pending-application.js';
import { toOrganization, upsertFee } from './repository.js';
import { DEFAULT_FEES, PAYMENT_METHODS, type Actor } from './types.js';
import type { ApprovalResult, UnderwritingDeps } from './underwriting-types.js';

/**
 * Approves an application: the organization with the default fee schedule, its invited owner and
 * activation link, a first sandbox key and the approval e-mail, in one transaction.
 */
export async function approve(
  deps: UnderwritingDeps,
  id: string,
  by: Actor,
): Promise<Result<ApprovalResult, OrganizationError>> {
  const { clock, mailer } = deps;
  const result = await onPending<ApprovalResult>(deps, id, 'approved', async (trx, application) => {
    // Checked before anything is written, so a refusal leaves nothing to roll back.
    if (await deps.users.hasAccount(trx, application.contact_email))
      return err({ code: 'contact_has_account', email: application.contact_email });
    const now = clock.now();
    const organizationRow = await trx
      .insertInto('organizations')
      .values({
        id: newId('org', now),
        name: application.company_name,
        application_id: application.id,
        contact_email: application.contact_email,
        kyc_status: 'REVIEWING',
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const organization = toOrganization(organizationRow);
    for (const method of PAYMENT_METHODS)
      await upsertFee(trx, organization.id, method, DEFAULT_FEES[method], now);

    const { userId: ownerUserId } = await deps.users.createOwnerUser(trx, {
      organizationId: organization.id,
      email: application.contact_email,
      name: application.contact_name,
    });
    const { url: activationUrl } = await deps.users.createActivation(trx, { userId: ownerUserId });

    const sandboxKey = await issueApiKey(trx, clock, {
      organizationId: organization.id,
      environment: 'sandbox',
      scopes: ['all'],
      name: 'First sandbox key',
      createdBy: 'system',
    });

    await decided(
      deps.applications.decide(trx, id, ['NEW', 'IN_REVIEW'], 'APPROVED', {
        reviewed_by: by.actor,
        reviewed_at: now,
        organization_id: organization.id,
        updated_at: now,
      }),
      id,
    );
    const emailId = await mailer.enqueue(
      trx,
      application.contact_email,
      applicationApprovedEmail({
        companyName: application.company_name,
        sandboxKey: sandboxKey.secret,
        activationUrl,
        dashboardUrl: `${deps.urls.web()}/login`,
        sandboxApiUrl: `${deps.urls.sandboxApi()}/v1`,
      }),
    );
    await auditDecision(deps, trx, by, {
      id,
      action: 'application.approved',
      organizationId: organization.id,
      before: application,
      after: {
        status: 'APPROVED',
        organizationId: organization.id,
        sandboxKeyId: sandboxKey.id,
        ownerUserId,
      },
    });
    return ok({
      organization,
      ownerUserId,
      ownerEmail: application.contact_email,
      sandboxKey,
      activationUrl,
      emailId,
    });
  });
  if (result.ok) mailer.nudge();
  return result;
}
