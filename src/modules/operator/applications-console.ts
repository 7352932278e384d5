import type { App } from '../../http/server.js';
import { cursorOrThrow } from '../../http/cursor-errors.js';
import type { UnderwritingService } from '../organizations/service.js';
import type { Actor } from '../organizations/types.js';
import type { Answer } from './command-input.js';
import type { OperatorCommands } from './commands.js';
import { commandAction, noticedPage } from './console-actions.js';
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

  const decision = {
    permission: 'underwrite',
    back: ({ id }: { id: string }) => `/applications/${id}`,
  } as const;

  // The decisions without a field: the form only carries the session's token.
  const steps: Array<{ path: string; notice: string; command: (id: string, by: Actor) => Answer<unknown> }> =
    [
      { path: 'start-review', notice: 'review', command: (id, by) => commands.startReview(id, by) },
      { path: 'approve', notice: 'approved', command: (id, by) => commands.approveApplication(id, by) },
    ];
  for (const step of steps) {
    commandAction(app, page, {
      ...decision,
      path: `/applications/:id/${step.path}`,
      schema: { params: IdParamsSchema, body: CsrfFormSchema },
      command: ({ id }, _form, by) => step.command(id, by),
      notice: step.notice,
    });
  }

  commandAction(app, page, {
    ...decision,
    path: '/applications/:id/reject',
    schema: { params: IdParamsSchema, body: ReasonFormSchema },
    command: ({ id }, form, by) => commands.rejectApplication(id, form.reason, by),
    notice: 'rejected',
  });
}
