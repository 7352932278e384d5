import { Type } from 'typebox';
import { ApiError, toApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { Result } from '../../shared/result.js';
import { WALLET_ERRORS, type WalletError } from '../wallets/errors.js';
import { WalletChangeSchema } from '../wallets/schemas.js';
import { MAX_COOLDOWN_HOURS } from '../wallets/cooldown.js';
import type { WalletService } from '../wallets/service.js';
import { apiRoute, ListOf } from './api-kit.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './command-input.js';
import { IdParamsSchema } from './schemas.js';
import type { WalletOperatorCommands } from './wallet-commands.js';

const STATUSES = ['awaiting_confirmation', 'cooling_down', 'applied', 'canceled', 'expired'] as const;

function valueOf<T>(result: Result<T, WalletError | { code: 'organization_not_found' }>): T {
  if (result.ok) return result.value;
  if (result.error.code === 'organization_not_found')
    throw new ApiError('not_found', 'No such organization.');
  throw toApiError(WALLET_ERRORS, result.error);
}

/**
 * Wallet change controls for the operator as JSON: the pending changes of every merchant, canceling one
 * with a reason, and an organization's cool-down.
 */
export async function operatorWalletApi(
  app: App,
  deps: { wallets: Pick<WalletService, 'listChanges'>; commands: WalletOperatorCommands },
): Promise<void> {
  const { wallets, commands } = deps;

  app.get(
    '/operator/v1/wallet-changes',
    apiRoute('read', ListOf(WalletChangeSchema), {
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
    }),
    async (request) => ({
      data: await wallets.listChanges({
        limit: request.query.limit,
        ...(request.query.status ? { status: request.query.status } : {}),
      }),
    }),
  );

  app.post(
    '/operator/v1/wallet-changes/:id/cancel',
    apiRoute('administer', WalletChangeSchema, {
      description:
        'Cancels an open wallet change (an added wallet is canceled with it); a closed one is 409 ' +
        '`invalid_state_transition`. Audited with the reason.',
      params: IdParamsSchema,
      body: Type.Object(
        { reason: Type.String({ minLength: 1, maxLength: REASON_MAX_LENGTH }) },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      valueOf(await commands.cancelWalletChange(request.params.id, request.body.reason, actorOf(request))),
  );

  app.put(
    '/operator/v1/organizations/:id/wallet-settings',
    apiRoute('administer', Type.Object({ organizationId: Type.String(), cooldownHours: Type.Integer() }), {
      description:
        'Sets the cool-down of the organization’s wallet changes, in whole hours (0 to 720); without it, ' +
        'WALLET_CHANGE_COOLDOWN_HOURS applies. Changes already cooling down keep their time. Audited.',
      params: IdParamsSchema,
      body: Type.Object(
        { cooldownHours: Type.Integer({ minimum: 0, maximum: MAX_COOLDOWN_HOURS }) },
        { additionalProperties: false },
      ),
    }),
    async (request) =>
      valueOf(
        await commands.setWalletCooldown(request.params.id, request.body.cooldownHours, actorOf(request)),
      ),
  );
}
