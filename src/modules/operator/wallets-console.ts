import { Type } from 'typebox';
import { toApiError } from '../../http/errors.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/server.js';
import { WALLET_ERRORS } from '../wallets/errors.js';
import type { WalletService } from '../wallets/service.js';
import { actorOf } from './auth.js';
import { REASON_MAX_LENGTH } from './command-input.js';
import { consoleRoute, FormBody, redirectTo, refusalText, staffMay, type ConsoleKit } from './console-kit.js';
import { IdParamsSchema } from './schemas.js';
import type { WalletOperatorCommands } from './wallet-commands.js';

type WalletConsole = {
  kit: ConsoleKit;
  wallets: Pick<WalletService, 'listChanges'>;
  commands: WalletOperatorCommands;
};

async function showChanges(
  { kit, wallets }: WalletConsole,
  request: FastifyRequest,
  reply: FastifyReply,
  notice?: string,
  error?: string,
) {
  return kit.page(request, reply, 'operator/wallet-changes', {
    title: 'Wallet changes',
    notice,
    error,
    changes: await wallets.listChanges({ limit: 200 }),
    canCancel: staffMay(request, 'administer'),
  });
}

/** Wallet change controls for the operator as a console page at `/wallet-changes`, and its cancel form. */
export async function operatorWalletConsole(app: App, deps: WalletConsole): Promise<void> {
  const { commands } = deps;

  app.get('/wallet-changes', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return showChanges(deps, request, reply, query.notice === 'canceled' ? 'Change canceled.' : undefined);
  });

  app.post(
    '/wallet-changes/:id/cancel',
    consoleRoute('administer', {
      params: IdParamsSchema,
      body: FormBody({ reason: Type.String({ maxLength: REASON_MAX_LENGTH }) }),
    }),
    async (request, reply) => {
      const canceled = await commands.cancelWalletChange(
        request.params.id,
        request.body.reason,
        actorOf(request),
      );
      if (canceled.ok) return redirectTo(reply, '/wallet-changes', 'canceled');
      // A refusal (no reason, a change already closed, one that does not exist) is the list page with the
      // reason, not the API's JSON.
      const error = toApiError(WALLET_ERRORS, canceled.error);
      reply.code(error.statusCode);
      return showChanges(deps, request, reply, undefined, refusalText(error));
    },
  );
}
