import type { App } from '../../http/server.js';
import { WALLET_ERRORS } from '../wallets/errors.js';
import type { WalletService } from '../wallets/service.js';
import { backTo, freshPage, ReasonField, recordForm, staffMay, type ConsoleKit } from './console-kit.js';
import type { WalletOperatorCommands } from './wallet-commands.js';

type WalletConsole = {
  kit: ConsoleKit;
  wallets: Pick<WalletService, 'listChanges'>;
  commands: WalletOperatorCommands;
};

const changesPage = ({ kit, wallets }: WalletConsole) =>
  freshPage(kit, 'operator/wallet-changes', async (request) => ({
    title: 'Wallet changes',
    changes: await wallets.listChanges({ limit: 200 }),
    canCancel: staffMay(request, 'administer'),
  }));

/** Wallet change controls for the operator as a console page at `/wallet-changes`, and its cancel form. */
export async function operatorWalletConsole(app: App, deps: WalletConsole): Promise<void> {
  const { commands } = deps;
  const showChanges = changesPage(deps);

  app.get('/wallet-changes', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { notice?: string };
    return showChanges(request, reply, {
      notice: query.notice === 'canceled' ? 'Change canceled.' : undefined,
    });
  });

  recordForm(app, '/wallet-changes/:id/cancel', ReasonField, {
    run: (id, form, by) => commands.cancelWalletChange(id, form.reason, by),
    // A refusal (no reason, a change already closed, one that does not exist) is the list page with the
    // reason, not the API's JSON.
    back: (request, reply) =>
      backTo(WALLET_ERRORS, '/wallet-changes', 'canceled', (extra) => showChanges(request, reply, extra)),
  });
}
