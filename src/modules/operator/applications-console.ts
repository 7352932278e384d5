import type { App } from '../../http/server.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { UnderwritingService } from '../organizations/service.js';
import { actorOf } from './auth.js';
import type { OperatorCommands } from './commands.js';
import { consoleAction, noticedPage } from './console-actions.js';
import { staffMay, type ConsoleKit } from './console-kit.js';
import { valueOf } from './errors.js';
import { CsrfFormSchema, IdParamsSchema, ReasonFormSchema, applicationView } from './schemas.js';

/** Merchant applications as console pages: the list, one application, and its decision forms (PRG). */
export async function operatorApplicationConsole(
  app: App,
  deps: { kit: ConsoleKit; underwriting: UnderwritingService; commands: OperatorCommands },
): Promise<void> {
  const { underwriting, commands } = deps;
  const page = noticedPage(deps.kit);

  app.get('/applications', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { status?: string; cursor?: string };
    const status = ['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED'].includes(query.status ?? '')
      ? (query.status as 'NEW')
      : undefined;
    const result = cursorOrThrow(
      await underwriting.listApplications({
        limit: 50,
        ...(status ? { status } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      }),
    );
    return page(request, reply, 'applications', {
      title: 'Applications',
      status: status ?? '',
      applications: result.data.map(applicationView),
      nextCursor: result.nextCursor,
    });
  });

  app.get('/applications/:id', { config: { operator: 'read' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const application = applicationView(valueOf(await underwriting.getApplication(id)));
    return page(request, reply, 'application', {
      title: application.companyName,
      application,
      canDecide: staffMay(request, 'underwrite'),
    });
  });

  consoleAction(app, page, {
    path: '/applications/:id/start-review',
    permission: 'underwrite',
    schema: { params: IdParamsSchema, body: CsrfFormSchema },
    run: async ({ id }, _form, request) => {
      valueOf(await commands.startReview(id, actorOf(request)));
      return `/applications/${id}?notice=review`;
    },
  });

  consoleAction(app, page, {
    path: '/applications/:id/approve',
    permission: 'underwrite',
    schema: { params: IdParamsSchema, body: CsrfFormSchema },
    run: async ({ id }, _form, request) => {
      valueOf(await commands.approveApplication(id, actorOf(request)));
      return `/applications/${id}?notice=approved`;
    },
  });

  consoleAction(app, page, {
    path: '/applications/:id/reject',
    permission: 'underwrite',
    schema: { params: IdParamsSchema, body: ReasonFormSchema },
    run: async ({ id }, form, request) => {
      valueOf(await commands.rejectApplication(id, form.reason, actorOf(request)));
      return `/applications/${id}?notice=rejected`;
    },
  });
}
