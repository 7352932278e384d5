import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';

/** The USDT networks a wallet can be on (product decision 25). */
export type Network = 'tron' | 'ethereum';
export const NETWORKS: readonly Network[] = ['tron', 'ethereum'];

/** Why an address was refused: `details.reason` of 400 `invalid_wallet_address`. */
export type AddressProblem =
  | 'wrong_length'
  | 'wrong_prefix'
  | 'invalid_characters'
  | 'bad_checksum'
  | 'wrong_version_byte'
  | 'zero_address'
  | 'token_contract';

export type AddressCheck = { ok: true; address: string } | { ok: false; reason: AddressProblem };

const base58check = createBase58check(sha256);

/** TRON mainnet addresses are version byte 0x41 followed by the 20-byte account id. */
const TRON_VERSION_BYTE = 0x41;
const TRON_ALPHABET = /^[1-9A-HJ-NP-Za-km-z]+$/;
/**
 * Token contracts: USDT itself and the other stablecoins' contracts on each network. Sending USDT to a
 * token contract loses it for good, so such an address is refused as a payout wallet.
 */
const TOKEN_CONTRACTS: Record<Network, ReadonlySet<string>> = {
  tron: new Set([
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // USDT (TRC-20)
    'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', // USDC (TRC-20)
  ]),
  ethereum: new Set([
    '0xdac17f958d2ee523a2206206994597c13d831ec7', // USDT (ERC-20)
    '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', // USDC (ERC-20)
  ]),
};

/**
 * Checks a payout address for its network and returns it in canonical form (TRON as given; Ethereum in
 * its EIP-55 checksummed form). An all-lowercase or all-uppercase Ethereum address carries no checksum
 * and is accepted; a mixed-case one must match EIP-55 exactly.
 */
export function checkAddress(network: Network, input: string): AddressCheck {
  return network === 'tron' ? checkTron(input) : checkEthereum(input);
}

function checkTron(address: string): AddressCheck {
  if (!address.startsWith('T')) return { ok: false, reason: 'wrong_prefix' };
  if (address.length !== 34) return { ok: false, reason: 'wrong_length' };
  if (!TRON_ALPHABET.test(address)) return { ok: false, reason: 'invalid_characters' };
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return { ok: false, reason: 'bad_checksum' };
  }
  if (payload.length !== 21) return { ok: false, reason: 'wrong_length' };
  if (payload[0] !== TRON_VERSION_BYTE) return { ok: false, reason: 'wrong_version_byte' };
  if (payload.subarray(1).every((byte) => byte === 0)) return { ok: false, reason: 'zero_address' };
  if (TOKEN_CONTRACTS.tron.has(address)) return { ok: false, reason: 'token_contract' };
  return { ok: true, address };
}

function checkEthereum(address: string): AddressCheck {
  if (!address.startsWith('0x')) return { ok: false, reason: 'wrong_prefix' };
  const hex = address.slice(2);
  if (hex.length !== 40) return { ok: false, reason: 'wrong_length' };
  if (!/^[0-9a-fA-F]{40}$/.test(hex)) return { ok: false, reason: 'invalid_characters' };
  const checksummed = toChecksumAddress(hex);
  const mixedCase = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (mixedCase && address !== checksummed) return { ok: false, reason: 'bad_checksum' };
  if (/^0{40}$/.test(hex)) return { ok: false, reason: 'zero_address' };
  if (TOKEN_CONTRACTS.ethereum.has(`0x${hex.toLowerCase()}`)) return { ok: false, reason: 'token_contract' };
  return { ok: true, address: checksummed };
}

/**
 * Whether two addresses of a network name the same account, as a chain or explorer may spell it: an
 * Ethereum address is hex, its letter case only the EIP-55 checksum (explorers and nodes answer in lower
 * case), so it is compared without case; a TRON address is base58, where case is part of the value.
 */
export function sameAddress(network: Network, a: string, b: string): boolean {
  return network === 'ethereum' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** EIP-55: a letter is upper case where the matching nibble of keccak-256(lowercase hex) is 8 or more. */
export function toChecksumAddress(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const byte = hash[i >> 1] ?? 0;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    const char = lower[i] ?? '';
    out += nibble >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/** The TRON address of a 20-byte account id (hex), for tests and the sandbox chain. */
export function tronAddressFromHex(accountHex: string): string {
  if (!/^[0-9a-fA-F]{40}$/.test(accountHex)) throw new RangeError('a TRON account id is 20 bytes of hex');
  const bytes = new Uint8Array(21);
  bytes[0] = TRON_VERSION_BYTE;
  for (let i = 0; i < 20; i++) bytes[i + 1] = Number.parseInt(accountHex.slice(i * 2, i * 2 + 2), 16);
  return base58check.encode(bytes);
}
