import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import {
  EVIDENCE_FIELD_LIMIT,
  EVIDENCE_FIELD_NAMES,
  type DisputeDetail,
  type EvidenceField,
} from '../disputes/schemas.js';
import type { DisputeError } from '../disputes/errors.js';
import { MAX_FILE_BYTES } from '../files/index.js';
import type { SignedIn } from '../users/http.js';
import { format } from './i18n.js';
import { IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';
import { pageData, type DisputePagesOptions } from './disputes-kit.js';
import type { DisputeNotice, DisputeProblem } from './disputes-i18n.js';
import { negate } from './payment-views.js';

const NOTICES: readonly DisputeNotice[] = ['saved', 'submitted', 'accepted', 'uploaded', 'removed'];

export const DisputeRoute = pageSchema({ params: IdParamsSchema });

export const noSuchDispute = () => new ApiError('not_found', 'No such dispute.');

/** Whether the dispute takes evidence now: it needs a response, nothing was sent, the deadline is ahead. */
export function answerable(
  dispute: Pick<DisputeDetail, 'status' | 'evidenceSubmittedAt' | 'evidenceDueBy'>,
  now: Date,
) {
  const open = dispute.status === 'needs_response' || dispute.status === 'warning_needs_response';
  const due = dispute.evidenceDueBy === null ? undefined : new Date(dispute.evidenceDueBy);
  return open && dispute.evidenceSubmittedAt === null && (due === undefined || now < due);
}

/** The owner's dispute with its ledger entries, or the not-found page (thrown). */
export async function disputeOf(options: DisputePagesOptions, current: SignedIn, id: string) {
  const found = await options.disputes.get(ownerOf(current), id);
  if (!found.ok) throw noSuchDispute();
  return found.value;
}

/** A refusal of the disputes use cases as a sentence of the page; not found is the not-found page. */
export function problemOf(error: DisputeError | { code: string }): {
  key: DisputeProblem;
  values?: Record<string, string>;
} {
  switch (error.code) {
    case 'dispute_not_found':
      throw noSuchDispute();
    case 'nothing_to_submit':
    case 'evidence_past_due':
    case 'evidence_already_submitted':
    case 'not_answerable':
    case 'acquirer_not_configured':
    case 'provider_unavailable':
      return { key: error.code };
    case 'provider_rejected':
      return { key: 'provider_rejected', values: { message: (error as { message: string }).message } };
    case 'invalid_input':
      return { key: 'invalid_input', values: { max: String(EVIDENCE_FIELD_LIMIT) } };
    default:
      // A refusal of the staged files (one another dispute took, one no longer there).
      return { key: 'file_rejected' };
  }
}

/** The HTTP status of the page that shows a problem. */
export const statusOf = (key: DisputeProblem) =>
  key === 'provider_rejected' || key === 'provider_unavailable'
    ? 502
    : key === 'acquirer_not_configured'
      ? 503
      : ['nothing_to_submit', 'invalid_input'].includes(key) || key.startsWith('file_')
        ? 400
        : 409;

export interface DisputePageExtra {
  notice?: DisputeNotice;
  problem?: { key: DisputeProblem; values?: Record<string, string> };
  /** What the evidence form showed when it was refused: shown again rather than the staged evidence. */
  typed?: Partial<Record<EvidenceField, string>>;
  /** The user's role cannot answer: said where the forms would be. */
  refused?: boolean;
}

/** The dispute page: its facts and deadline, money, ledger entries, submissions, evidence and actions. */
export async function disputePage(
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
  status: number,
  extra: DisputePageExtra = {},
) {
  const dispute = await disputeOf(options, current, id);
  const owner = ownerOf(current);
  const data = pageData(options, request, current);
  const messages = data.dm;
  const files = await Promise.all(
    (dispute.evidence.files ?? []).map(async (fileId) => {
      const file = await options.files.get(owner, fileId);
      return file.ok ? file.value : { id: fileId, filename: null, type: '', size: 0 };
    }),
  );
  const staged = dispute.evidence as Partial<Record<EvidenceField, string>>;
  const fields = EVIDENCE_FIELD_NAMES.map((name) => ({
    name,
    id: `evidence-${name}`,
    words: messages.fields[name],
    value: extra.typed?.[name] ?? staged[name] ?? '',
  }));
  const entries = dispute.ledgerEntries.map((entry) => {
    const pending = entry.postings.find((posting) => posting.account === 'merchant_pending')?.amount ?? '0';
    return { ...entry, label: messages.entryKinds[entry.kind], effect: negate(pending) };
  });
  const problem = extra.problem;
  return options.kit.render(request, reply, 'dashboard-dispute', status, {
    ...data,
    title: () => `${messages.title} · ${data.money(dispute.amount)} · ${dispute.charge.merchantReference}`,
    dispute,
    dueBy: data.due(dispute.evidenceDueBy),
    answerable: answerable(dispute, options.clock.now()),
    acceptable: dispute.status === 'needs_response',
    fields,
    files,
    entries,
    fieldLimit: EVIDENCE_FIELD_LIMIT,
    fileHint: format(messages.fileHint, { max: String(MAX_FILE_BYTES / 1024 / 1024) }),
    notice: extra.notice,
    problem: problem ? format(messages.problems[problem.key], problem.values ?? {}) : undefined,
    problemKey: problem?.key,
    refused: extra.refused ?? false,
  });
}

export async function showDispute(
  options: DisputePagesOptions,
  request: PageRequest<typeof DisputeRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const notice = NOTICES.find((value) => value === request.query.notice);
  return disputePage(options, request, reply, current, request.params.id, 200, notice ? { notice } : {});
}

/** The words of the page a refused role sees: the dispute read-only, status 403, with the note. */
export const refusedPage = (
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
) => disputePage(options, request, reply, current, id, 403, { refused: true });
