import { Type, type Static } from 'typebox';
import { ListQueryWith, PageSchema, StrictObject } from '../../http/schemas.js';
import type { WalletChangeRow, WalletRow } from './model.js';

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const NullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const NetworkSchema = Type.Enum(['tron', 'ethereum'], {
  description: 'USDT on TRON (TRC-20) or on Ethereum (ERC-20).',
});

export const WalletCreateSchema = StrictObject({
  network: NetworkSchema,
  address: Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'TRON: base58check, 34 characters starting with `T` (version byte 0x41). Ethereum: `0x` and 40 hex ' +
      'digits; a mixed-case address must carry a valid EIP-55 checksum. The zero address and token ' +
      'contract addresses are refused: 400 `invalid_wallet_address` with `details.reason`.',
  }),
  label: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A name for your records; shown back as given.',
    }),
  ),
  makeDefault: Type.Optional(
    Type.Boolean({
      description:
        'Make it the default wallet (where automatic payouts go). Absent: true when the environment has no ' +
        'default wallet yet, otherwise false.',
    }),
  ),
});
export type WalletCreate = Static<typeof WalletCreateSchema>;

export const WalletChangeSummarySchema = Type.Object(
  {
    id: Type.String({ pattern: '^wch_', description: 'The change, prefix `wch_`.' }),
    kind: Type.Enum(['add', 'make_default'], {
      description: '`add`: the wallet is being added; `make_default`: it is becoming the default.',
    }),
    makeDefault: Type.Boolean({
      description: 'Whether the wallet becomes the default when the change applies.',
    }),
    status: Type.Enum(['awaiting_confirmation', 'cooling_down'], {
      description:
        '`awaiting_confirmation` until an owner confirms it from the e-mailed link (24 hours, then it ' +
        'expires); `cooling_down` until `effectiveAt`.',
    }),
    effectiveAt: NullableTimestamp('When it takes effect; null until an owner confirms it.'),
  },
  {
    description:
      'The open change of a live wallet (change controls): until it applies, payouts go where they went before.',
  },
);

export const WalletViewSchema = Type.Object(
  {
    id: Type.String({ pattern: '^wal_', description: 'Prefix `wal_`.' }),
    network: NetworkSchema,
    address: Type.String({
      description: 'Canonical form: TRON as given, Ethereum in its EIP-55 checksummed form.',
    }),
    label: Type.Union([Type.String(), Type.Null()], { description: 'Your name for it.' }),
    status: Type.Enum(['pending', 'active', 'archived', 'canceled'], {
      description:
        '`pending` while its addition awaits confirmation and the cool-down (live only), `active`, ' +
        '`archived` (no longer used), or `canceled` (its addition was canceled or expired).',
    }),
    isDefault: Type.Boolean({
      description: 'The default wallet: at most one per environment, always active.',
    }),
    livemode: Type.Boolean({
      description:
        'False for a sandbox wallet (test keys): it takes effect at once and never receives real money; only ' +
        'the sandbox chain pays it.',
    }),
    pendingChange: Type.Union([WalletChangeSummarySchema, Type.Null()], {
      description: 'The open change of this wallet, or null.',
    }),
    createdAt: Timestamp('When it was added.'),
    updatedAt: Timestamp('When it last changed.'),
  },
  { description: 'Where payouts go: a USDT address on TRON or Ethereum.' },
);
export type WalletView = Static<typeof WalletViewSchema>;

export const WalletListSchema = PageSchema(
  WalletViewSchema,
  'Pass it back as `cursor` for the next page; null on the last page.',
);

export const WalletListQuerySchema = ListQueryWith({
  status: Type.Optional(
    Type.Enum(['pending', 'active', 'archived', 'canceled'], {
      description: 'Only wallets in this status.',
    }),
  ),
});

export const WalletIdParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'The wallet, `wal_…`.' }),
});

/** A change as the operator and the dashboard see it. */
export const WalletChangeSchema = Type.Object({
  id: Type.String({ pattern: '^wch_' }),
  organizationId: Type.String({ pattern: '^org_' }),
  livemode: Type.Boolean(),
  walletId: Type.String({ pattern: '^wal_' }),
  network: NetworkSchema,
  address: Type.String(),
  kind: Type.Enum(['add', 'make_default']),
  makeDefault: Type.Boolean(),
  status: Type.Enum(['awaiting_confirmation', 'cooling_down', 'applied', 'canceled', 'expired']),
  requestedBy: Type.String({ description: '`key:…`, `user:…` or `staff:…`.' }),
  confirmExpiresAt: NullableTimestamp('Until when an owner can confirm it.'),
  confirmedAt: NullableTimestamp('When an owner confirmed it.'),
  confirmedBy: Type.Union([Type.String(), Type.Null()]),
  effectiveAt: NullableTimestamp('When it takes effect.'),
  appliedAt: NullableTimestamp('When it took effect.'),
  canceledAt: NullableTimestamp('When it was canceled.'),
  canceledBy: Type.Union([Type.String(), Type.Null()]),
  cancelReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp('When it was requested.'),
});
export type WalletChangeView = Static<typeof WalletChangeSchema>;

export function walletView(row: WalletRow, change: WalletChangeRow | undefined): WalletView {
  const open =
    change && (change.status === 'awaiting_confirmation' || change.status === 'cooling_down')
      ? change
      : undefined;
  return {
    id: row.id,
    network: row.network,
    address: row.address,
    label: row.label,
    status: row.status,
    isDefault: row.is_default,
    livemode: row.environment === 'live',
    pendingChange: open
      ? {
          id: open.id,
          kind: open.kind,
          makeDefault: open.make_default,
          status: open.status as 'awaiting_confirmation' | 'cooling_down',
          effectiveAt: open.effective_at?.toISOString() ?? null,
        }
      : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function changeView(change: WalletChangeRow, wallet: WalletRow): WalletChangeView {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    id: change.id,
    organizationId: change.organization_id,
    livemode: change.environment === 'live',
    walletId: change.wallet_id,
    network: wallet.network,
    address: wallet.address,
    kind: change.kind,
    makeDefault: change.make_default,
    status: change.status,
    requestedBy: change.requested_by,
    confirmExpiresAt: iso(change.confirm_expires_at),
    confirmedAt: iso(change.confirmed_at),
    confirmedBy: change.confirmed_by,
    effectiveAt: iso(change.effective_at),
    appliedAt: iso(change.applied_at),
    canceledAt: iso(change.canceled_at),
    canceledBy: change.canceled_by,
    cancelReason: change.cancel_reason,
    createdAt: change.created_at.toISOString(),
  };
}
