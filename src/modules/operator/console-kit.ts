import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { toApiError, type ApiError, type ErrorTable } from '../../http/errors.js';
import type { OperatorAuth } from '../../http/route-config.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import { counted } from '../../web/i18n.js';
import type { Renderer } from '../../web/render.js';
import type { Actor } from '../organizations/types.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './command-input.js';
import { ENVIRONMENTS, IdParamsSchema } from './schemas.js';
import { can, type StaffPermission, type StaffService } from './staff.js';

/**
 * The page kit of the operator console, as the dashboard's `dashboard/kit.ts` is the merchant's: what
 * every console half of an area uses to show a page (with its notice or refusal), run a form's command
 * and then redirect, and show the refusal page. Who may call is the route's `config.operator` (the role
 * guard of `auth.ts`, which also checks the `_csrf` field of every form post before validation).
 */

/** What a page shows besides its data: the notice of the redirect that led there, a refusal, a status. */
export interface PageExtra {
  notice?: string | undefined;
  error?: string | undefined;
  status?: number;
}

/** The route options of a console page or form: who may (`auth.ts`), its schema kept out of OpenAPI. */
export function consoleRoute<S extends Record<string, TSchema>>(permission: OperatorAuth, schema: S) {
  return { schema: { ...schema, hide: true as const }, config: { operator: permission } };
}

/** A console form's body: its fields and the session's CSRF token (`_csrf`, checked by `auth.ts`). */
export const FormBody = <T extends Record<string, TSchema>>(fields: T) =>
  Type.Object(
    { _csrf: Type.Optional(Type.String({ maxLength: 200 })), ...fields },
    { additionalProperties: false },
  );

/** Whether the signed-in staff member's role allows this (a page shows the forms it may post). */
export function staffMay(request: FastifyRequest, permission: StaffPermission): boolean {
  return request.staff ? can(request.staff, permission) : false;
}

/** The notice of a redirect's `?notice=`, in words; nothing without one. */
export function noticeOf(notices: Record<string, string>, notice: string | undefined): string | undefined {
  return notice === undefined ? undefined : notices[notice];
}

/** 303 to a console page, with the code of its notice when there is one. */
export function redirectTo(reply: FastifyReply, path: string, notice?: string): FastifyReply {
  return reply.redirect(notice === undefined ? path : `${path}?notice=${notice}`, 303);
}

/**
 * A console form's command, then a 303 to the page that shows what it did (`to`); a refusal is the
 * command's error as the API's envelope, shown by `refused` on the page the form belongs to.
 */
export async function commandThenRedirect<T, E extends { code: string }>(
  reply: FastifyReply,
  command: {
    run: () => Promise<Result<T, E>>;
    errors: ErrorTable<E>;
    to: (value: T) => string;
    refused: (error: ApiError) => Promise<FastifyReply> | FastifyReply;
  },
): Promise<FastifyReply> {
  const result = await command.run();
  if (result.ok) return reply.redirect(command.to(result.value), 303);
  return command.refused(toApiError(command.errors, result.error));
}

/** A refusal on the page the form belongs to: its text, answered with its status. */
export function refusalExtra(error: ApiError): PageExtra {
  return { error: refusalText(error), status: error.statusCode };
}

/** Where a form's command leads (`commandThenRedirect`), besides the command itself. */
export type FormOutcome<T, E extends { code: string }> = Omit<
  Parameters<typeof commandThenRedirect<T, E>>[1],
  'run'
>;

/**
 * A form's command leads to the page `path` with the `notice`; refused, `show` shows the page the form
 * belongs to again with the refusal.
 */
export function backTo<E extends { code: string }>(
  errors: ErrorTable<E>,
  path: string,
  notice: string,
  show: (extra: PageExtra, error: ApiError) => Promise<FastifyReply> | FastifyReply,
): FormOutcome<unknown, E> {
  return {
    errors,
    to: () => `${path}?notice=${notice}`,
    refused: (error) => show(refusalExtra(error), error),
  };
}

/** A record page's query: the notice of the redirect that led there. */
const NoticeQuery = Type.Object(
  { notice: Type.Optional(Type.String({ maxLength: 40 })) },
  { additionalProperties: false },
);

/** A console page of one record (`…/:id`), shown by `show` with the notice its `?notice=` names. */
export function recordPage(
  app: App,
  path: string,
  notices: Record<string, string>,
  show: (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: PageExtra,
  ) => Promise<FastifyReply> | FastifyReply,
): void {
  app.get(
    path,
    consoleRoute('read', { params: IdParamsSchema, querystring: NoticeQuery }),
    async (request, reply) =>
      show(request, reply, request.params.id, { notice: noticeOf(notices, request.query.notice) }),
  );
}

/** A form's reason (a cancelation, a closure, a rate): its command trims it and says when it is too long. */
export const ReasonField = { reason: Type.String({ maxLength: REASON_MAX_LENGTH }) };
/** A form's environment, one of the two. */
export const EnvironmentField = { environment: Type.Enum([...ENVIRONMENTS]) };
/** A short text field (an amount, a rate, a date), at most 40 characters: the route parses it. */
export const ShortText = Type.String({ maxLength: 40 });

type FormOf<F extends Record<string, TSchema>> = Static<ReturnType<typeof FormBody<F>>>;

/**
 * An administrator's form about one record (`…/:id/…`): the command with the record's id, the form and
 * the staff member behind it, then where `back` leads (`commandThenRedirect`).
 */
export function recordForm<F extends Record<string, TSchema>, T, E extends { code: string }>(
  app: App,
  path: string,
  fields: F,
  form: {
    run: (id: string, form: FormOf<F>, by: Actor) => Promise<Result<T, E>>;
    back: (request: FastifyRequest, reply: FastifyReply, id: string) => FormOutcome<T, E>;
  },
): void {
  app.post(
    path,
    consoleRoute('administer', { params: IdParamsSchema, body: FormBody(fields) }),
    async (request, reply) => {
      const { id } = request.params;
      return commandThenRedirect(reply, {
        run: () => form.run(id, request.body as FormOf<F>, actorOf(request)),
        ...form.back(request, reply, id),
      });
    },
  );
}

/** A refusal as a console page says it: the message, then each validation issue with its field. */
export function refusalText(error: ApiError, between = ': '): string {
  const issues = (error.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  const detail = issues.map((issue) => `${issue.path}${between}${issue.message}`).join('; ');
  return detail ? `${error.message} ${detail}` : error.message;
}

/**
 * The console's renderer: every page also gets `who(actor)`, the name of the staff member behind a
 * `staff:…` actor or reviewer (the id itself when unknown; `cli`, `system`, `user:…` and `key:…` as they
 * are), and `counted(n, one, other)` ("1 attempt", "2 attempts"). `refresh` reads the staff names anew:
 * the listener calls it before each console page, so a page never shows a staff id where a name exists.
 */
export function consoleRenderer(
  base: Renderer,
  staff: Pick<StaffService, 'names'>,
): Renderer & { refresh(): Promise<void> } {
  let names = new Map<string, string>();
  const who = (actor: string | null | undefined): string => {
    if (!actor) return '';
    const id = actor.startsWith('staff:') ? actor.slice('staff:'.length) : actor;
    return names.get(id) ?? actor;
  };
  return {
    render: (view, data) => base.render(view, { who, counted, ...data }),
    async refresh() {
      names = await staff.names();
    },
  };
}

export interface ConsoleKit {
  /**
   * A console page of the operator listener: the view rendered with the signed-in staff member, the CSRF
   * token of the session's forms and whether the member may administer, never cached.
   */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: Record<string, unknown>,
  ): FastifyReply;
  /** A page with the notice or the refusal of `extra`, answered with its status. */
  show(
    request: FastifyRequest,
    reply: FastifyReply,
    view: string,
    data: Record<string, unknown>,
    extra?: PageExtra,
  ): FastifyReply;
  /** The refusal page: what was refused (and why), and the way back. */
  refused(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    data: { title: string; heading: string; backTo: string; error?: string },
  ): FastifyReply;
}

/**
 * A page read afresh for each request and shown with the notice or the refusal of `extra`: the list page
 * a form's refusal shows again, as its GET route does.
 */
export function freshPage(
  kit: ConsoleKit,
  view: string,
  data: (request: FastifyRequest) => Promise<Record<string, unknown>>,
) {
  return async (request: FastifyRequest, reply: FastifyReply, extra: PageExtra = {}) =>
    kit.show(request, reply, view, await data(request), extra);
}

/** The same for the page of one record (`recordPage`): `data` reads what it shows of the record `id`. */
export function freshRecordPage(
  kit: ConsoleKit,
  view: string,
  data: (id: string) => Promise<Record<string, unknown>>,
) {
  return async (request: FastifyRequest, reply: FastifyReply, id: string, extra: PageExtra = {}) =>
    kit.show(request, reply, view, await data(id), extra);
}

export function createConsoleKit(renderer: Renderer): ConsoleKit {
  const kit: ConsoleKit = {
    page: (request, reply, view, data) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          renderer.render(view, {
            staff: request.staff,
            csrf: request.operatorSession?.csrfToken ?? '',
            canAdminister: staffMay(request, 'administer'),
            error: undefined,
            notice: undefined,
            ...data,
          }),
        ),

    show(request, reply, view, data, extra = {}) {
      if (extra.status) reply.code(extra.status);
      return kit.page(request, reply, view, { ...data, notice: extra.notice, error: extra.error });
    },

    refused(request, reply, status, data) {
      reply.code(status);
      return kit.page(request, reply, 'operator/refused', data);
    },
  };
  return kit;
}
