import { Type } from 'typebox';
import { INVALID_CURSOR } from '../../http/cursor-errors.js';
import type { App } from '../../http/server.js';
import type { Clock } from '../../shared/clock.js';
import { formatAmount } from '../checkout/format.js';
import type { QueuedDispute } from '../disputes/queue.js';
import { consoleRoute, refusalText, type ConsoleKit } from './console-kit.js';
import {
  DISPUTE_STATUSES,
  namedQueuePage,
  type DisputeQueueDeps,
  type OperatorDisputes,
} from './disputes-api.js';
import { ENVIRONMENTS } from './schemas.js';

/** Disputes on one page of the queue. */
const PAGE_SIZE = 50;
/** Open disputes the merchant view shows; the queue filtered by the organization has the rest. */
const MERCHANT_VIEW_DISPUTES = 10;

const QueueQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Enum([...DISPUTE_STATUSES]), Type.Literal('')])),
    environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])),
    organizationId: Type.Optional(Type.String({ maxLength: 64 })),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
    before: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

/** Hours from `now` to `due`, rounded down; negative once past. */
const hoursLeft = (due: string | null, now: Date): number | null =>
  due === null ? null : Math.floor((new Date(due).getTime() - now.getTime()) / 3_600_000);

const withHoursLeft = <D extends QueuedDispute>(disputes: D[], now: Date) =>
  disputes.map((dispute) => ({ ...dispute, hoursLeft: hoursLeft(dispute.evidenceDueBy, now) }));

/** `/disputes` with these filters (the empty ones left out) and a page's cursor. */
export function queueUrl(
  filter: Record<string, string | undefined>,
  page: Record<string, string> = {},
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filter, ...page })) if (value) params.set(name, value);
  const query = params.toString();
  return query === '' ? '/disputes' : `/disputes?${query}`;
}

/**
 * The disputes queue across merchants at `/disputes`, nearest deadline first (those without one last),
 * filtered in a GET form, a page at a time with next and previous links.
 */
export async function operatorDisputeConsole(
  app: App,
  deps: DisputeQueueDeps & { kit: ConsoleKit; clock: Clock },
): Promise<void> {
  app.get('/disputes', consoleRoute('read', { querystring: QueueQuery }), async (request, reply) => {
    const filter = {
      status: request.query.status || undefined,
      environment: request.query.environment || undefined,
      organizationId: request.query.organizationId?.trim() || undefined,
    };
    const found = await namedQueuePage(deps, filter, {
      limit: PAGE_SIZE,
      cursor: request.query.cursor || undefined,
      before: request.query.before || undefined,
    });
    if (!found.ok)
      return deps.kit.refused(request, reply, 400, {
        title: 'Disputes',
        heading: 'This page of the disputes queue was refused',
        backTo: queueUrl(filter),
        error: refusalText(INVALID_CURSOR.invalid_cursor(found.error)),
      });
    const page = found.value;
    return deps.kit.page(request, reply, 'operator/disputes', {
      title: 'Disputes',
      disputes: withHoursLeft(page.data, deps.clock.now()),
      ...filter,
      statuses: DISPUTE_STATUSES,
      environments: ENVIRONMENTS,
      money: (minorUnits: string) => formatAmount(minorUnits, 'TRY', 'en'),
      nextUrl: page.nextCursor === null ? undefined : queueUrl(filter, { cursor: page.nextCursor }),
      previousUrl:
        page.previousCursor === null ? undefined : queueUrl(filter, { before: page.previousCursor }),
    });
  });
}

/**
 * The merchant view's disputes section: the organization's open disputes in both environments, nearest
 * deadline first, and the queue filtered by it.
 */
export async function merchantDisputes(disputes: OperatorDisputes, organizationId: string, now: Date) {
  const page = await disputes.queue({ organizationId }, { limit: MERCHANT_VIEW_DISPUTES });
  const found = page.ok ? page.value : { data: [], nextCursor: null };
  return {
    openDisputes: withHoursLeft(found.data, now),
    moreOpenDisputes: found.nextCursor !== null,
    disputesUrl: queueUrl({ organizationId }),
  };
}
