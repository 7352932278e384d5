import { ok } from '../../shared/result.js';
import type { UnderwritingService } from '../organizations/service.js';
import type { Actor } from '../organizations/types.js';
import { withReason, type Answer } from './command-input.js';
import { applicationView, organizationView } from './schemas.js';

type ApplicationView = ReturnType<typeof applicationView>;
type Underwriting = { underwriting: UnderwritingService };

/** An approval as the operator sees it: the application, the organization, where its keys went. */
export interface ApprovalView {
  application: ApplicationView;
  organization: ReturnType<typeof organizationView>;
  ownerEmail: string;
  emailId: string;
}

export async function startReview(
  { underwriting }: Underwriting,
  id: string,
  by: Actor,
): Answer<ApplicationView> {
  const started = await underwriting.startReview(id, by);
  return started.ok ? ok(applicationView(started.value)) : started;
}

export async function approveApplication(
  { underwriting }: Underwriting,
  id: string,
  by: Actor,
): Answer<ApprovalView> {
  const approved = await underwriting.approve(id, by);
  if (!approved.ok) return approved;
  const application = await underwriting.getApplication(id);
  if (!application.ok) return application;
  // The keys and the activation link go to the merchant only, by e-mail: never to the operator.
  return ok({
    application: applicationView(application.value),
    organization: organizationView(approved.value.organization),
    ownerEmail: approved.value.ownerEmail,
    emailId: approved.value.emailId,
  });
}

export async function rejectApplication(
  { underwriting }: Underwriting,
  id: string,
  reason: string,
  by: Actor,
): Answer<ApplicationView> {
  return withReason(reason, async (trimmed) => {
    const rejected = await underwriting.reject(id, trimmed, by);
    return rejected.ok ? ok(applicationView(rejected.value)) : rejected;
  });
}
