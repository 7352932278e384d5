import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, errorResponses, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import type { Renderer } from '../../web/render.js';
import { WALLET_ERRORS, type WalletError } from '../wallets/errors.js';
import { WalletChangeSchema } from '../wallets/schemas.js';
import { MAX_COOLDOWN_HOURS, type WalletService } from '../wallets/service.js';
import { actorOf } from './auth.js';
import { refusalText } from './console-page.js';
import { REASON_MAX_LENGTH } from './commands.js';
import { IdParamsSchema } from './schemas.js';
import { can } from './staff.js';
import type { WalletOperatorCommands } from './wallet-commands.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429);
const STATUSES = ['awaiting_confirmation', 'cooling_down', 'applied', 'canceled', 'expired'] as const;

function valueOf<T>(result: Result<T, WalletError | { code: 'organization_not_found' }>): T {
  if (result.ok) return result.value;
  if (result.error.code === 'organization_not_found')
    throw new ApiError('not_found', 'No such organization.');
  throw toApiError(WALLET_ERRORS, result.error);
}

/**
 * Wallet change controls for the operator (issue 13 item 2): the pending changes of every merchant,
 * canceling one with a reason, and an organization's cool-down. JSON under `/operator/v1/…`, a console
 * page at `/wallet-changes`.
 */
export async function operatorWalletRoutes(
  app: App,
  deps: {
    wallets: Pick<WalletService, 'listChanges'>;
    commands: WalletOperatorCommands;
    renderer: Renderer;
  },
): Promise<void> {
  const { wallets, commands } = deps;

  app.get(
    '/operator/v1/wallet-changes',
    {
      schema: {
        description:
          'Wallet changes of every merchant, newest first: by default the open ones (awaiting an owner’s ' +
          'confirmation or cooling down), or those of one `status`.',
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Enum([...STATUSES])),
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Type.Array(WalletChangeSchema) }), ...errors },
      },
      config: { operator: 'read' },
    },
    async (request) => ({
      data: await wallets.listChanges({
        limit: request.query.limit,
        ...(request.query.status ? { status: request.query.status } : {}),
      }),
    }),
  );

  app.post(
    '/operator/v1/wallet-changes/:id/cancel',
    {
      schema: {
        description:
          'Cancels an open wallet change (an added wallet is canceled with it); a closed one is 409 ' +
          '`invalid_state_transition`. Audited with the reason.',
        params: IdParamsSchema,
        body: Type.Object(
          { reason: Type.String({ minLength: 1, maxLength: REASON_MAX_LENGTH }) },
          { additionalProperties: false },
        ),
        response: { 200: WalletChangeSchema, ...errors },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(await commands.cancelWalletChange(request.params.id, request.body.reason, actorOf(request))),
  );

  app.put(
    '/operator/v1/organizations/:id/wallet-settings',
    {
      schema: {
        description:
          'Sets the cool-down of the organization’s wallet changes, in whole hours (0 to 720); without it, ' +
          'WALLET_CHANGE_COOLDOWN_HOURS applies. Changes already cooling down keep their time. Audited.',
        params: IdParamsSchema,
        body: Type.Object(
          { cooldownHours: Type.Integer({ minimum: 0, maximum: MAX_COOLDOWN_HOURS }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ organizationId: Type.String(), cooldownHours: Type.Integer() }),
          ...errors,
        },
      },
      config: { operator: 'administer' },
    },
    async (request) =>
      valueOf(
        await commands.setWalletCooldown(request.params.id, request.body.cooldownHours, actorOf(request)),
      ),
  );

  const page = async (request: FastifyRequest, reply: FastifyReply, notice?: string, error?: string) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        deps.renderer.render('operator/wallet-changes', {
          title: 'Wallet changes',
          staff: request.staff,
          csrf: request.operatorSession?.csrfToken ?? '',
          notice,
          error,
          changes: await wallets.listChanges({ limit: 200 }),
          canCancel: request.staff ? can(request.staff, 'administer') : false,
        }),
      );

  app.get('/wallet-changes', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return page(request, reply, query.notice === 'canceled' ? 'Change canceled.' : undefined);
  });

  app.post(
    '/wallet-changes/:id/cancel',
    {
      schema: {
        params: IdParamsSchema,
        body: Type.Object(
          {
            _csrf: Type.Optional(Type.String({ maxLength: 200 })),
            reason: Type.String({ maxLength: REASON_MAX_LENGTH }),
          },
          { additionalProperties: false },
        ),
        hide: true,
      },
      config: { operator: 'administer' },
    },
    async (request, reply) => {
      const canceled = await commands.cancelWalletChange(
        request.params.id,
        request.body.reason,
        actorOf(request),
      );
      if (canceled.ok) return reply.redirect('/wallet-changes?notice=canceled', 303);
      // A refusal (no reason, a change already closed, one that does not exist) is the list page with the
      // reason, not the API's JSON.
      const error = toApiError(WALLET_ERRORS, canceled.error);
      reply.code(error.statusCode);
      return page(request, reply, undefined, refusalText(error));
    },
  );
}
