import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { ReconciliationService } from '../reconciliation/service.js';
import { addDays, utcDateOf } from '../../shared/business-calendar.js';
import { actorOf } from './auth.js';
import {
  consoleRoute,
  EnvironmentField,
  FormBody,
  ShortText,
  type ConsoleKit,
  type PageExtra,
} from './console-kit.js';
import { RECONCILIATION_ERRORS, reconciliationValue } from './reconciliation-errors.js';
import { ENVIRONMENTS } from './schemas.js';

const ListQuery = Type.Object(
  {
    environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])),
    cursor: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

type ReconciliationConsole = { kit: ConsoleKit; reconciliation: ReconciliationService };

async function showRuns(
  { kit, reconciliation }: ReconciliationConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  query: { environment?: 'sandbox' | 'live' | '' | undefined; cursor?: string | undefined },
  extra: PageExtra = {},
) {
  const environment = query.environment || undefined;
  const list = reconciliationValue(
    await reconciliation.list({ environment }, { limit: 50, cursor: query.cursor || undefined }),
  );
  const params = new URLSearchParams(environment ? { environment } : {});
  if (list.nextCursor) params.set('cursor', list.nextCursor);
  const data = {
    title: 'Reconciliation',
    runs: list.data,
    environment,
    environments: ENVIRONMENTS,
    nextUrl: list.nextCursor === null ? undefined : `/reconciliation?${params.toString()}`,
    yesterday: addDays(utcDateOf(new Date()), -1),
  };
  return kit.show(request, reply, 'operator/reconciliation', data, extra);
}

/**
 * The daily reconciliation as console pages at `/reconciliation`: the runs, one run with its
 * differences, and the form that runs a date again.
 */
export async function operatorReconciliationConsole(app: App, deps: ReconciliationConsole): Promise<void> {
  const { kit, reconciliation } = deps;

  app.get('/reconciliation', consoleRoute('read', { querystring: ListQuery }), async (request, reply) =>
    showRuns(deps, request, reply, request.query),
  );

  app.get(
    '/reconciliation/:id',
    consoleRoute('read', {
      params: Type.Object(
        { id: Type.String({ minLength: 1, maxLength: 64 }) },
        { additionalProperties: false },
      ),
    }),
    async (request, reply) => {
      const run = await reconciliation.retrieve(request.params.id);
      if (!run) {
        return kit.refused(request, reply, 404, {
          title: 'Not found',
          heading: 'No such reconciliation run.',
          backTo: '/reconciliation',
        });
      }
      return kit.page(request, reply, 'operator/reconciliation-run', {
        title: `Reconciliation ${run.reportDate}`,
        run,
      });
    },
  );

  app.post(
    '/reconciliation/runs',
    consoleRoute('administer', {
      body: FormBody({ ...EnvironmentField, reportDate: ShortText }),
    }),
    async (request, reply) => {
      const result = await reconciliation.run(request.body.environment, request.body.reportDate.trim(), {
        ...actorOf(request),
        origin: 'operator',
      });
      if (result.ok) return reply.redirect(`/reconciliation/${encodeURIComponent(result.value.id)}`, 303);
      const error = toApiError(RECONCILIATION_ERRORS, result.error);
      const issues = (error.details?.issues as Array<{ message: string }> | undefined) ?? [];
      return showRuns(
        deps,
        request,
        reply,
        {},
        {
          error: [error.message, ...issues.map((issue) => issue.message)].join(' '),
          status: error.statusCode,
        },
      );
    },
  );
}
