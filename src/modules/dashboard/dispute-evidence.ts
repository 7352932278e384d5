import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import {
  EVIDENCE_FIELD_LIMIT,
  EVIDENCE_FIELD_NAMES,
  type EvidenceField,
  type EvidenceUpdate,
} from '../disputes/schemas.js';
import type { DisputeError } from '../disputes/errors.js';
import type { Result } from '../../shared/result.js';
import { contextOf, type SignedIn } from '../users/http.js';
import { answerable, disputeOf, disputePage, problemOf, refusedPage, statusOf } from './dispute-page.js';
import type { DisputeNotice } from './disputes-i18n.js';
import { disputePath, pageData, type DisputePagesOptions } from './disputes-kit.js';
import { Csrf, CsrfFormSchema, IdParamsSchema, ownerOf, pageSchema, type PageRequest } from './kit.js';

/** Text a form field takes: the use case's limit, checked again there. */
const EvidenceText = Type.Optional(Type.String({ maxLength: EVIDENCE_FIELD_LIMIT }));

const EvidenceFormSchema = Type.Object(
  {
    _csrf: Csrf,
    action: Type.Union([Type.Literal('save'), Type.Literal('submit')]),
    ...(Object.fromEntries(EVIDENCE_FIELD_NAMES.map((name) => [name, EvidenceText])) as Record<
      EvidenceField,
      typeof EvidenceText
    >),
  },
  { additionalProperties: false },
);

export const EvidenceRoute = pageSchema({ params: IdParamsSchema, body: EvidenceFormSchema });
export const ConfirmRoute = pageSchema({ params: IdParamsSchema });
export const SubmitRoute = pageSchema({ params: IdParamsSchema, body: CsrfFormSchema });
export const AcceptRoute = pageSchema({ params: IdParamsSchema, body: CsrfFormSchema });
export const RemoveFileRoute = pageSchema({
  params: Type.Object({ ...IdParamsSchema.properties, fileId: Type.String({ minLength: 1, maxLength: 64 }) }),
  body: CsrfFormSchema,
});

type Outcome = { notice: DisputeNotice; path?: string } | { reply: FastifyReply };

/**
 * A form of the dispute page: the signed-in user of the post (its CSRF token checked), the not-found page
 * without the flag, the dispute page read-only (403) for a role that may not refund, then the answer and
 * a 303 to the page that shows it.
 */
export async function answering(
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  run: (current: SignedIn) => Promise<Outcome>,
) {
  const { kit } = options;
  const current = await kit.signedInPost(request, reply);
  if (!current) return reply;
  if (!kit.hasFeature(current, 'disputes')) throw new ApiError('not_found', 'No such page.');
  if (!kit.may(current, 'refundCharges')) {
    await refusedPage(options, request, reply, current, id);
    return reply;
  }
  const outcome = await run(current);
  if ('reply' in outcome) return outcome.reply;
  return kit.redirect(request, reply, outcome.path ?? disputePath(id), { notice: outcome.notice });
}

/** The dispute page with a problem, as the outcome of a form. */
const withProblem = async (
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  id: string,
  problem: ReturnType<typeof problemOf>,
  typed?: Partial<Record<EvidenceField, string>>,
): Promise<Outcome> => ({
  reply: await disputePage(options, request, reply, current, id, statusOf(problem.key), {
    problem,
    ...(typed ? { typed } : {}),
  }),
});

// ---------------------------------------------------------------- the evidence form: save, or on to submit

export async function saveEvidence(
  options: DisputePagesOptions,
  request: PageRequest<typeof EvidenceRoute>,
  reply: FastifyReply,
) {
  const { id } = request.params;
  return answering(options, request, reply, id, async (current) => {
    const typed: Partial<Record<EvidenceField, string>> = {};
    const update: EvidenceUpdate = {};
    // The form holds every field: an emptied one clears what was staged.
    for (const name of EVIDENCE_FIELD_NAMES) {
      const value = request.body[name];
      if (value === undefined) continue;
      typed[name] = value;
      update[name] = value.trim() === '' ? null : value;
    }
    const saved = await options.disputes.evidence(ownerOf(current), id, update);
    if (!saved.ok) return withProblem(options, request, reply, current, id, problemOf(saved.error), typed);
    await audit(options, request, current, id, 'dispute.evidence_staged');
    if (request.body.action === 'submit') return { notice: 'saved', path: `${disputePath(id)}/submit` };
    return { notice: 'saved' };
  });
}

// ---------------------------------------------------------------- submit: the confirmation step, then the post

export async function confirmSubmit(
  options: DisputePagesOptions,
  request: PageRequest<typeof ConfirmRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { id } = request.params;
  if (!options.kit.may(current, 'refundCharges')) return refusedPage(options, request, reply, current, id);
  const dispute = await disputeOf(options, current, id);
  if (!answerable(dispute, options.clock.now()))
    return disputePage(options, request, reply, current, id, 409, {
      problem: problemOf({
        code: dispute.evidenceSubmittedAt ? 'evidence_already_submitted' : 'not_answerable',
      }),
    });
  const data = pageData(options, request, current);
  const staged = dispute.evidence as Partial<Record<EvidenceField, string>>;
  return options.kit.render(request, reply, 'dashboard-dispute-confirm', 200, {
    ...data,
    title: () => data.dm.confirmSubmit.title,
    confirming: 'submit',
    dispute,
    dueBy: data.due(dispute.evidenceDueBy),
    fields: EVIDENCE_FIELD_NAMES.filter((name) => staged[name] !== undefined).map((name) => ({
      name,
      label: data.dm.fields[name].label,
      value: staged[name] ?? '',
    })),
    files: dispute.evidence.files ?? [],
  });
}

export const submitEvidence = (
  options: DisputePagesOptions,
  request: PageRequest<typeof SubmitRoute>,
  reply: FastifyReply,
) =>
  answerOnce(options, request, reply, request.params.id, 'submitted', (owner, id) =>
    options.disputes.evidence(owner, id, { submit: true }),
  );

/** A confirmed answer (the evidence sent, or the dispute accepted): audited, then the page that says so. */
function answerOnce(
  options: DisputePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  notice: 'submitted' | 'accepted',
  call: (owner: ReturnType<typeof ownerOf>, id: string) => Promise<Result<unknown, DisputeError>>,
) {
  return answering(options, request, reply, id, async (current) => {
    const answered = await call(ownerOf(current), id);
    if (!answered.ok) return withProblem(options, request, reply, current, id, problemOf(answered.error));
    await audit(
      options,
      request,
      current,
      id,
      notice === 'submitted' ? 'dispute.evidence_submitted' : 'dispute.accepted',
    );
    return { notice };
  });
}

// ---------------------------------------------------------------- accept: the confirmation step, then the post

export async function confirmAccept(
  options: DisputePagesOptions,
  request: PageRequest<typeof ConfirmRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const { id } = request.params;
  if (!options.kit.may(current, 'refundCharges')) return refusedPage(options, request, reply, current, id);
  const dispute = await disputeOf(options, current, id);
  if (dispute.status !== 'needs_response')
    return disputePage(options, request, reply, current, id, 409, { problem: { key: 'not_answerable' } });
  const data = pageData(options, request, current);
  return options.kit.render(request, reply, 'dashboard-dispute-confirm', 200, {
    ...data,
    title: () => data.dm.accept.title,
    confirming: 'accept',
    dispute,
    dueBy: data.due(dispute.evidenceDueBy),
    fields: [],
    files: [],
  });
}

export const acceptDispute = (
  options: DisputePagesOptions,
  request: PageRequest<typeof AcceptRoute>,
  reply: FastifyReply,
) =>
  answerOnce(options, request, reply, request.params.id, 'accepted', (owner, id) =>
    options.disputes.accept(owner, id),
  );

// ---------------------------------------------------------------- a staged file taken out of the evidence

export async function removeFile(
  options: DisputePagesOptions,
  request: PageRequest<typeof RemoveFileRoute>,
  reply: FastifyReply,
) {
  const { id, fileId } = request.params;
  return answering(options, request, reply, id, async (current) => {
    const dispute = await disputeOf(options, current, id);
    const staged = dispute.evidence.files ?? [];
    if (!staged.includes(fileId)) throw new ApiError('not_found', 'No such file in the evidence.');
    const rest = staged.filter((staging) => staging !== fileId);
    const saved = await options.disputes.evidence(ownerOf(current), id, {
      files: rest.length > 0 ? rest : null,
    });
    if (!saved.ok) return withProblem(options, request, reply, current, id, problemOf(saved.error));
    return { notice: 'removed' };
  });
}

export function audit(
  { users }: DisputePagesOptions,
  request: FastifyRequest,
  current: SignedIn,
  disputeId: string,
  action: string,
  after: Record<string, unknown> = {},
) {
  return users.recordAudit(current.account.user, action, contextOf(request), {
    targetType: 'dispute',
    targetId: disputeId,
    after: { ...after, environment: current.session.environment },
  });
}
