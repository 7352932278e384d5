import type { DisputeEvidence, DisputeSubmission } from '../../db/schema.js';
import type { AcquirerDispute } from '../acquirer/types.js';
import { err, ok, type Result } from '../../shared/result.js';
import type { Owner } from '../../shared/owner.js';
import { acquirerOf, applyAnswer, ask, readBack, rejectedBy, type AnswerDeps } from './answer.js';
import type { DisputeError } from './errors.js';
import { attachFiles, fileIssues } from './evidence-files.js';
import type { DisputeRow } from './model.js';
import * as disputes from './repository.js';
import {
  EVIDENCE_FIELD_LIMIT,
  EVIDENCE_FIELD_NAMES,
  EVIDENCE_FIELDS,
  type EvidenceUpdate,
} from './schemas.js';
import { disputeChargeOf, disputeView, type DisputeView } from './views.js';

/**
 * The merchant's evidence of a dispute's current stage (issue 37 item 4): staged (`submit: false`, merged
 * into `disputes.evidence`), or sent to the acquirer as the stage's one answer (`submit: true`). A stage
 * takes one submission, before its `evidenceDueBy`, while the dispute needs a response.
 */

/**
 * Whether the dispute takes evidence now (`open`), refuses it, or may hold a submission whose answer was
 * lost (`ask`: its notification came first, and only the acquirer knows whether the evidence was this).
 */
function checkOf(row: DisputeRow, now: Date): DisputeError | 'open' | 'ask' {
  if (row.evidence_submitted_at !== null) return { code: 'evidence_already_submitted' };
  if (row.evidence_due_by !== null && now >= row.evidence_due_by)
    return { code: 'evidence_past_due', evidenceDueBy: row.evidence_due_by.toISOString() };
  if (row.status === 'needs_response' || row.status === 'warning_needs_response') return 'open';
  if (row.status === 'under_review' || row.status === 'warning_under_review' || row.closed_by === 'decision')
    return 'ask';
  return { code: 'not_answerable', status: row.status, action: 'evidence' };
}

/** The staged evidence with the update merged in: a member sent replaces, `null` clears. */
function merged(staged: DisputeEvidence, update: EvidenceUpdate): DisputeEvidence {
  const evidence: DisputeEvidence = { ...staged };
  for (const name of EVIDENCE_FIELD_NAMES) {
    const value = update[name];
    if (value === null) delete evidence[name];
    else if (value !== undefined) evidence[name] = value;
  }
  if (update.files === null) delete evidence.files;
  else if (update.files !== undefined) evidence.files = update.files;
  if (evidence.files?.length === 0) delete evidence.files;
  return evidence;
}

/** The text the acquirer receives: each staged field under its label, then the file ids. */
export function evidenceText(evidence: DisputeEvidence): string {
  const parts = EVIDENCE_FIELD_NAMES.filter((name) => evidence[name] !== undefined).map(
    (name) => `${EVIDENCE_FIELDS[name]}:\n${evidence[name]}`,
  );
  if (evidence.files !== undefined && evidence.files.length > 0)
    parts.push(`Files:\n${evidence.files.join('\n')}`);
  return parts.join('\n\n');
}

const tooLong = (length: number): DisputeError => ({
  code: 'invalid_input',
  issues: [
    {
      path: '',
      in: 'body',
      code: 'too_long',
      message: `the staged evidence comes to ${length} characters with its labels; the acquirer takes at most ${EVIDENCE_FIELD_LIMIT}`,
    },
  ],
});

/** Stages the update under the row lock; for a submission, also checks there is something to send. */
async function stage(
  deps: AnswerDeps,
  owner: Owner,
  id: string,
  update: EvidenceUpdate,
): Promise<Result<DisputeRow, DisputeError>> {
  return deps.db.transaction().execute(async (trx): Promise<Result<DisputeRow, DisputeError>> => {
    const row = await disputes.lockOwnedDispute(trx, owner, id);
    if (!row) return err({ code: 'dispute_not_found' });
    const now = deps.clock.now();
    const check = checkOf(row, now);
    if (typeof check === 'object') return err(check);
    const evidence = merged(row.evidence, update);
    if (deps.files && update.files != null && update.files.length > 0) {
      const issues = await fileIssues(deps.files, trx, owner, row, update.files);
      if (issues.length > 0) return err({ code: 'invalid_input', issues });
    }
    const changed = JSON.stringify(evidence) !== JSON.stringify(row.evidence);
    if (check === 'ask' && (update.submit !== true || changed))
      return err({ code: 'evidence_already_submitted' });
    if (update.submit === true) {
      const text = evidenceText(evidence);
      if (text.trim() === '') return err({ code: 'nothing_to_submit' });
      if (text.length > EVIDENCE_FIELD_LIMIT) return err(tooLong(text.length));
    }
    if (!changed) return ok(row);
    return ok(await disputes.stageEvidence(trx, row.id, evidence, now));
  });
}

export async function answerWithEvidence(
  deps: AnswerDeps,
  owner: Owner,
  id: string,
  update: EvidenceUpdate,
): Promise<Result<DisputeView, DisputeError>> {
  const staged = await stage(deps, owner, id, update);
  if (!staged.ok) return staged;
  const row = staged.value;
  if (update.submit !== true) {
    const charge = await deps.charges.findVisible(owner, row.charge_id);
    if (!charge) return err({ code: 'dispute_not_found' });
    return ok(disputeView(row, disputeChargeOf(charge)));
  }
  return submit(deps, owner, row);
}

/** The acquirer's record of this very submission in its dispute, if it holds one. */
function takenBy(
  resource: AcquirerDispute,
  stage: string,
  text: string,
): { submittedAt: string } | undefined {
  if (!Array.isArray(resource.evidence)) return undefined;
  return resource.evidence.find((given) => given?.stage === stage && given.text === text);
}

/**
 * When the acquirer took the submission, or `now` when it does not say: a retry that recovers a
 * submission after a crash may come hours later, after `evidenceDueBy` even.
 */
function takenAt(given: { submittedAt: string } | undefined, now: Date): string {
  const at = given === undefined ? Number.NaN : Date.parse(given.submittedAt);
  return new Date(Number.isNaN(at) ? now : at).toISOString();
}

/**
 * Sends the staged evidence. A 409 `evidence_already_submitted` whose read-back holds this very text for
 * the stage is this submission's lost answer (a retry after a timeout): it is recorded as sent. Every
 * other refusal on the merits is applied from the read-back and answered as the gateway's own.
 */
async function submit(
  deps: AnswerDeps,
  owner: Owner,
  row: DisputeRow,
): Promise<Result<DisputeView, DisputeError>> {
  const acquirer = acquirerOf(deps, row);
  if (!acquirer.ok) return acquirer;
  const text = evidenceText(row.evidence);
  const sent = await ask(() => acquirer.value.submitDisputeEvidence(row.provider_dispute_id, text));
  if (!sent.ok) return sent;
  let resource: AcquirerDispute;
  let refusal: DisputeError | 'not_answerable' | undefined;
  if ('refused' in sent.value) {
    const { providerCode } = sent.value.refused;
    if (!['evidence_already_submitted', 'evidence_past_due', 'invalid_state'].includes(providerCode))
      return err(rejectedBy(sent.value.refused));
    const read = await readBack(acquirer.value, row);
    if (!read.ok) return read;
    resource = read.value;
    if (providerCode === 'evidence_past_due')
      refusal = {
        code: 'evidence_past_due',
        evidenceDueBy: resource.evidenceDueBy ?? row.evidence_due_by?.toISOString() ?? '',
      };
    else if (providerCode === 'invalid_state') refusal = 'not_answerable';
    else if (!takenBy(resource, row.stage, text)) refusal = { code: 'evidence_already_submitted' };
  } else resource = sent.value.dispute;
  const submission: DisputeSubmission = {
    stage: row.stage,
    evidence: row.evidence,
    submittedAt: takenAt(takenBy(resource, row.stage, text), deps.clock.now()),
  };
  const view = await applyAnswer(deps, owner, row, resource, async (trx, fresh) => {
    if (refusal !== undefined || fresh.submissions.some((given) => given.stage === submission.stage))
      return fresh;
    await attachFiles(deps.files, trx, owner, fresh, row.evidence.files, (detail, message) =>
      deps.logger.warn(detail, message),
    );
    return disputes.recordSubmission(trx, fresh, submission, fresh.stage === row.stage, deps.clock.now());
  });
  if (refusal === 'not_answerable')
    return err({ code: 'not_answerable', status: view.status, action: 'evidence' });
  return refusal === undefined ? ok(view) : err(refusal);
}
