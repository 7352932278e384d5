import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiError } from '../../http/errors.js';
import type { Renderer } from '../../web/render.js';
import { can } from './staff.js';

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
