import { INVALID_CURSOR, type CursorError } from '../../http/cursor-errors.js';
import { ApiError, type ErrorTable } from '../../http/errors.js';
import type { AddressProblem, Network } from '../../shared/chain-address.js';
import { notFound } from '../payouts/errors.js';

/** What the wallet use cases refuse (docs/decisions/0020-domain-errors.md). */
export type WalletError =
  | { code: 'wallet_not_found' }
  | { code: 'invalid_wallet_address'; network: Network; reason: AddressProblem }
  | { code: 'wallet_exists'; walletId: string }
  | { code: 'wallet_not_active'; status: string }
  | { code: 'default_not_archivable' }
  | { code: 'change_open'; changeId: string }
  | { code: 'change_not_found' }
  | { code: 'change_closed'; status: string }
  | { code: 'invalid_cooldown'; message: string }
  | { code: 'reason_required' }
  | CursorError;

const REASON_TEXT: Record<AddressProblem, string> = {
  wrong_length: 'it has the wrong length',
  wrong_prefix: 'it does not start as an address of this network does',
  invalid_characters: 'it contains characters an address of this network cannot have',
  bad_checksum: 'its checksum is wrong (a mistyped character?)',
  wrong_version_byte: 'it is not a TRON mainnet address (version byte 0x41)',
  zero_address: 'it is the zero address; anything sent there is lost',
  token_contract: 'it is a token contract; anything sent there is lost',
};

export const WALLET_ERRORS: ErrorTable<WalletError> = {
  wallet_not_found: notFound('No such wallet.'),
  invalid_wallet_address: (error) =>
    new ApiError(
      'invalid_wallet_address',
      `The address is not a valid ${error.network === 'tron' ? 'TRON' : 'Ethereum'} USDT address: ${REASON_TEXT[error.reason]}.`,
      { reason: error.reason, network: error.network },
    ),
  wallet_exists: (error) =>
    ApiError.validation(
      [
        {
          path: 'address',
          in: 'body',
          code: 'invalid_value',
          message: `is already wallet ${error.walletId} of this environment`,
        },
      ],
      'This address is already one of your wallets.',
    ),
  wallet_not_active: (error) =>
    new ApiError(
      'invalid_state_transition',
      `Only an active wallet can do this; this one is ${error.status}.`,
    ),
  default_not_archivable: () =>
    new ApiError(
      'invalid_state_transition',
      'The default wallet cannot be archived; make another wallet the default first.',
    ),
  change_open: (error) =>
    new ApiError(
      'invalid_state_transition',
      `This wallet already has an open change (${error.changeId}); confirm or cancel it first.`,
      { changeId: error.changeId },
    ),
  change_not_found: notFound('No such wallet change.'),
  change_closed: (error) =>
    new ApiError('invalid_state_transition', `The change is no longer open; it is ${error.status}.`),
  invalid_cooldown: (error) =>
    ApiError.validation([
      { path: 'cooldownHours', in: 'body', code: 'invalid_value', message: error.message },
    ]),
  reason_required: () =>
    ApiError.validation([
      { path: 'reason', in: 'body', code: 'invalid_value', message: 'must not be blank' },
    ]),
  ...INVALID_CURSOR,
};
