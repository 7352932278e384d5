import multipart from '@fastify/multipart';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import type { SignedIn } from '../users/http.js';
import {
  acceptDispute,
  AcceptRoute,
  confirmAccept,
  ConfirmRoute,
  confirmSubmit,
  EvidenceRoute,
  RemoveFileRoute,
  removeFile,
  saveEvidence,
  submitEvidence,
  SubmitRoute,
} from './dispute-evidence.js';
import { DisputeRoute, showDispute } from './dispute-page.js';
import { uploadEvidenceFile, UploadRoute } from './dispute-upload.js';
import {
  DISPUTE_STATUSES,
  DISPUTES_PATH,
  dm,
  PAGE_LIMIT,
  pageData,
  reader,
  type DisputePagesOptions,
} from './disputes-kit.js';
import {
  CursorQuerySchema,
  cursorOf,
  guardedRoute,
  ownerOf,
  pageRoute,
  registerPages,
  SETTINGS_POST,
  type PageRequest,
} from './kit.js';

export type { DisputePagesOptions };

const ListQuerySchema = Type.Object({
  ...CursorQuerySchema.properties,
  status: Type.Optional(Type.String({ maxLength: 100 })),
});
const DisputeListRoute = { hide: true, querystring: ListQuerySchema };
const CaseListRoute = { hide: true, querystring: CursorQuerySchema };

/**
 * The Disputes pages of the merchant dashboard (issue 37 item 7, flag `disputes`): the disputes of the
 * session's environment, newest first, filtered by status, with tabs for early fraud warnings and
 * pre-dispute alerts; a dispute with its deadline, money, ledger entries and submissions, the evidence
 * form (save, or submit after a confirmation step), evidence files uploaded through the files service,
 * and acceptance after a confirmation step. Every role reads; only roles that may refund a payment answer
 * or accept. Another organization's or environment's case is 404; without the flag every page is 404.
 */
export async function disputePages(app: App, options: DisputePagesOptions): Promise<void> {
  // Only in this plugin's scope: the evidence file's form is multipart; every other form stays urlencoded.
  await app.register(multipart, { throwFileSizeLimit: false });
  const id = `${DISPUTES_PATH}/:id`;
  registerPages(app, options, [
    guardedRoute('GET', DISPUTES_PATH, DisputeListRoute, reader, showDisputes),
    guardedRoute('GET', `${DISPUTES_PATH}/fraud-warnings`, CaseListRoute, reader, caseList('fraudWarnings')),
    guardedRoute('GET', `${DISPUTES_PATH}/alerts`, CaseListRoute, reader, caseList('alerts')),
    guardedRoute('GET', id, DisputeRoute, reader, showDispute),
    pageRoute('POST', `${id}/evidence`, EvidenceRoute, saveEvidence, {
      ...SETTINGS_POST,
      bodyLimit: 2 << 20,
    }),
    guardedRoute('GET', `${id}/submit`, ConfirmRoute, reader, confirmSubmit),
    pageRoute('POST', `${id}/submit`, SubmitRoute, submitEvidence, SETTINGS_POST),
    guardedRoute('GET', `${id}/accept`, ConfirmRoute, reader, confirmAccept),
    pageRoute('POST', `${id}/accept`, AcceptRoute, acceptDispute, SETTINGS_POST),
    pageRoute('POST', `${id}/files`, UploadRoute, uploadEvidenceFile, SETTINGS_POST),
    pageRoute('POST', `${id}/files/:fileId/remove`, RemoveFileRoute, removeFile, SETTINGS_POST),
  ]);
}

async function showDisputes(
  options: DisputePagesOptions,
  request: PageRequest<typeof DisputeListRoute>,
  reply: FastifyReply,
  current: SignedIn,
) {
  const typed = request.query.status?.trim() ?? '';
  const status = DISPUTE_STATUSES.find((value) => value === typed);
  const cursor = cursorOf(request.query.cursor);
  const render = (code: number, extra: Record<string, unknown>) =>
    options.kit.render(request, reply, 'dashboard-disputes', code, {
      ...pageData(options, request, current),
      tab: 'disputes',
      statuses: DISPUTE_STATUSES,
      status: typed,
      filterParams: typed === '' ? {} : { status: typed },
      rows: [],
      nextCursor: null,
      paged: false,
      ...extra,
    });
  if (typed !== '' && status === undefined) return render(400, { problem: dm(request).badStatus });
  const listed = await options.disputes.list(ownerOf(current), {
    limit: PAGE_LIMIT,
    ...(status === undefined ? {} : { status }),
    ...(cursor === undefined ? {} : { cursor }),
  });
  if (!listed.ok) return render(400, { problem: dm(request).badCursor });
  return render(200, {
    rows: listed.value.data,
    nextCursor: listed.value.nextCursor,
    paged: cursor !== undefined,
  });
}

/** A tab of cases that are no dispute: the early fraud warnings or the pre-dispute alerts, newest first. */
function caseList(tab: 'fraudWarnings' | 'alerts') {
  return async (
    options: DisputePagesOptions,
    request: PageRequest<typeof CaseListRoute>,
    reply: FastifyReply,
    current: SignedIn,
  ) => {
    const cursor = cursorOf(request.query.cursor);
    const query = { limit: PAGE_LIMIT, ...(cursor === undefined ? {} : { cursor }) };
    const owner = ownerOf(current);
    const listed =
      tab === 'alerts'
        ? await options.disputes.listAlerts(owner, query)
        : await options.disputes.listFraudWarnings(owner, query);
    return options.kit.render(request, reply, 'dashboard-disputes', listed.ok ? 200 : 400, {
      ...pageData(options, request, current),
      title: () => dm(request).tabs[tab],
      tab,
      problem: listed.ok ? undefined : dm(request).badCursor,
      rows: listed.ok ? listed.value.data : [],
      nextCursor: listed.ok ? listed.value.nextCursor : null,
      paged: cursor !== undefined,
    });
  };
}
