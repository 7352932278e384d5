import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import { validationErrorFromFastify } from '../../http/validation.js';
import type { Actor } from '../organizations/types.js';
import { actorOf } from './auth.js';
import type { Answer } from './command-input.js';
import { refusalText, type ConsoleKit } from './console-kit.js';
import { valueOf } from './errors.js';

/**
 * The notices of the underwriting console's redirects (applications, organizations): any of its pages
 * (the login, the audit log and the mailbox too) shows the one its `?notice=` names.
 */
const NOTICES: Record<string, string> = {
  review: 'Review started.',
  approved: 'Approved: the organization exists and the approval e-mail is on its way.',
  rejected: 'Rejected: the applicant is told by e-mail.',
  kyc: 'KYC status saved.',
  fees: 'Fee saved.',
  flag: 'Feature flag saved.',
  limits: 'Rate limits saved.',
  frozen: 'Organization frozen: its API requests now answer 403 organization_frozen.',
  unfrozen: 'Organization unfrozen.',
  three_d_secure: '3-D Secure setting saved: it applies from the next card attempt on.',
};

export type NoticedPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  view: string,
  data: Record<string, unknown>,
  status?: number,
) => FastifyReply;

/** A page of the underwriting console (`operator/<view>`), with the notice of its `?notice=`. */
export function noticedPage(kit: ConsoleKit): NoticedPage {
  return (request, reply, view, data, status = 200) => {
    const query = request.query as { notice?: string };
    reply.code(status);
    return kit.page(request, reply, `operator/${view}`, {
      notice: query.notice ? NOTICES[query.notice] : undefined,
      ...data,
    });
  };
}

/** Where a console action is posted, who may post it, and the schemas of its path and form. */
interface ActionRoute<P extends TSchema, B extends TSchema> {
  path: string;
  permission: 'underwrite' | 'administer';
  schema: { params: P; body: B };
}

/**
 * A console action: its form and path have schemas (like the API routes), checked after who may call;
 * the handler calls one operator command and redirects to the path it answers, with a notice (PRG).
 */
export function consoleAction<P extends TSchema, B extends TSchema>(
  app: App,
  page: NoticedPage,
  action: ActionRoute<P, B> & {
    run: (params: Static<P>, form: Static<B>, request: FastifyRequest) => Promise<string>;
  },
) {
  const { path, permission, schema, run } = action;
  return app.post(
    path,
    { schema: { ...schema, hide: true }, attachValidation: true, config: { operator: permission } },
    async (request, reply) => {
      try {
        const invalid = request.validationError as
          (FastifyError & { validationContext?: string }) | undefined;
        if (invalid?.validation)
          throw validationErrorFromFastify(invalid.validation as never, invalid.validationContext);
        return reply.redirect(
          await run(request.params as Static<P>, request.body as Static<B>, request),
          303,
        );
      } catch (error) {
        if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
        return refused(page, request, reply, error);
      }
    },
  );
}

/**
 * A console action that runs one operator command with the staff member behind the request: its refusal
 * is the refusal page (`consoleAction`), its success a 303 to `back(params)` with the `notice`.
 */
export function commandAction<P extends TSchema, B extends TSchema>(
  app: App,
  page: NoticedPage,
  action: ActionRoute<P, B> & {
    command: (params: Static<P>, form: Static<B>, by: Actor) => Answer<unknown>;
    back: (params: Static<P>) => string;
    notice: string;
  },
) {
  const { command, back, notice, ...route } = action;
  return consoleAction(app, page, {
    ...route,
    run: async (params, form, request) => {
      valueOf(await command(params, form, actorOf(request)));
      return `${back(params)}?notice=${notice}`;
    },
  });
}

/** A refusal re-renders with the message (validation issues listed), on a page of its own. */
function refused(page: NoticedPage, request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  return page(
    request,
    reply,
    'refused',
    {
      title: 'Refused',
      heading: 'The action was refused',
      error: refusalText(error, ' '),
      backTo: request.url.replace(/\/[^/]+(\/[^/]+)?$/, ''),
    },
    error.statusCode,
  );
}
