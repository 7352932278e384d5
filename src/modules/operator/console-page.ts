import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../../http/errors.js';
import { counted } from '../../web/i18n.js';
import type { Renderer } from '../../web/render.js';
import { can, type StaffService } from './staff.js';

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

/**
 * A console page of the operator listener: the view rendered with the signed-in staff member, the CSRF
 * token of the session's forms and whether the member may administer, never cached.
 */
export function consolePage(renderer: Renderer) {
  return (request: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown>) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        renderer.render(view, {
          staff: request.staff,
          csrf: request.operatorSession?.csrfToken ?? '',
          canAdminister: request.staff ? can(request.staff, 'administer') : false,
          error: undefined,
          notice: undefined,
          ...data,
        }),
      );
}

/** A refusal as a console page says it: the message, then each validation issue with its field. */
export function refusalText(error: ApiError): string {
  const issues = (error.details?.issues as Array<{ path: string; message: string }> | undefined) ?? [];
  const detail = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  return detail ? `${error.message} ${detail}` : error.message;
}
