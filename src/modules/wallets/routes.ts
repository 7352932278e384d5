import { failures, routeKit, unwrapWith } from '../../http/api-routes.js';
import type { IdempotencyOptions } from '../../http/idempotency.js';
import type { App } from '../../http/server.js';
import { callerScope, ownerOf } from '../api-keys/context.js';
import { WALLET_ERRORS } from './errors.js';
import {
  WalletCreateSchema,
  WalletIdParamsSchema,
  WalletListQuerySchema,
  WalletListSchema,
  WalletViewSchema,
} from './schemas.js';
import type { WalletService } from './service.js';

const unwrap = unwrapWith(WALLET_ERRORS);

const TAGS = ['Wallets'];
const FLAG =
  'Needs the `wallets` feature of the organization (403 `forbidden` without it); wallets are always ' +
  'manageable in the dashboard.';
const OWNERSHIP =
  'Wallets belong to the organization and environment of the key; another organization’s or ' +
  'environment’s wallet is 404 `not_found`.';
const CONTROLS =
  'Live (live keys): the change takes effect only after an owner confirms it from the e-mailed link (and a ' +
  'TOTP code when 2FA is on) and a cool-down (24 hours unless set otherwise) passes; until then ' +
  '`pendingChange` shows it and payouts go to the previous default. Sandbox (test keys): at once.';

type KeyRequest = Parameters<typeof ownerOf>[0];

/** The calling API key, for the audit log. */
function actorOf(request: KeyRequest) {
  return { actor: `key:${ownerOf(request).keyId}`, requestId: request.id, ip: request.ip };
}

/** The key's organization and environment: whose wallets these are. */
function owner(request: KeyRequest) {
  const { organizationId, environment } = ownerOf(request);
  return { organizationId, environment };
}

/** `/v1/wallets` (flag `wallets`). */
export async function walletRoutes(
  app: App,
  options: { service: WalletService; idempotency: Omit<IdempotencyOptions, 'scopeOf'> },
): Promise<void> {
  const { service } = options;
  const kit = routeKit({
    tags: TAGS,
    feature: 'wallets',
    idempotency: { ...options.idempotency, scopeOf: callerScope },
  });

  app.post(
    '/v1/wallets',
    kit.idempotent(
      {
        operationId: 'createWallet',
        summary: 'Add a wallet',
        description:
          'Adds a USDT address on TRON or Ethereum where payouts go. An address that fails the network’s ' +
          'checks (length, prefix, characters, checksum, TRON version byte), the zero address and token ' +
          'contracts are 400 `invalid_wallet_address` with `details.reason`; an address that is already an ' +
          'active or pending wallet is 400 `validation_failed`. Records `wallet.created`. ' +
          `${CONTROLS} Needs scope \`write\`. Honours \`X-Idempotency-Key\`. ${FLAG}`,
      },
      {
        body: WalletCreateSchema,
        response: { 201: WalletViewSchema, ...failures('create') },
      },
    ),
    async (request, reply) =>
      reply.code(201).send(unwrap(await service.create(owner(request), request.body, actorOf(request)))),
  );

  kit.list(app, '/v1/wallets', WalletListQuerySchema, WalletListSchema, {
    operationId: 'listWallets',
    summary: 'List wallets',
    description:
      'Wallets of this environment, newest first, `limit` (1 to 100, default 20) per page, optionally of one ' +
      `\`status\`; pass \`nextCursor\` back as \`cursor\`. Needs scope \`read\`. ${FLAG}`,
    read: async (request, query) => unwrap(await service.list(owner(request), query)),
  });

  kit.byId(app, '/v1/wallets/:id', WalletIdParamsSchema, WalletViewSchema, {
    operationId: 'getWallet',
    summary: 'Retrieve a wallet',
    description: `Needs scope \`read\`. ${OWNERSHIP} ${FLAG}`,
    read: async (request, id) => unwrap(await service.get(owner(request), id)),
  });

  app.post(
    '/v1/wallets/:id/make-default',
    kit.idempotent(
      {
        operationId: 'makeDefaultWallet',
        summary: 'Make a wallet the default',
        description:
          'Makes an active wallet the default (where automatic payouts go; one per environment). A wallet ' +
          'that is not active, or that has an open change, is 409 `invalid_state_transition`; the default ' +
          `wallet answers as it is. Records \`wallet.default_changed\` when it takes effect. ${CONTROLS} ` +
          `Needs scope \`write\`. Honours \`X-Idempotency-Key\`. ${OWNERSHIP} ${FLAG}`,
      },
      {
        params: WalletIdParamsSchema,
        response: { 200: WalletViewSchema, ...failures('action') },
      },
    ),
    async (request) => unwrap(await service.makeDefault(owner(request), request.params.id, actorOf(request))),
  );

  app.post(
    '/v1/wallets/:id/archive',
    kit.idempotent(
      {
        operationId: 'archiveWallet',
        summary: 'Archive a wallet',
        description:
          'Archives an active wallet: it receives no more payouts. The default wallet cannot be archived ' +
          '(make another the default first), nor a wallet with an open change, nor a pending one (cancel its ' +
          'change in the dashboard): 409 `invalid_state_transition`. Archiving an archived wallet answers it ' +
          `as it is. Needs scope \`write\`. Honours \`X-Idempotency-Key\`. ${OWNERSHIP} ${FLAG}`,
      },
      {
        params: WalletIdParamsSchema,
        response: { 200: WalletViewSchema, ...failures('action') },
      },
    ),
    async (request) => unwrap(await service.archive(owner(request), request.params.id, actorOf(request))),
  );
}
