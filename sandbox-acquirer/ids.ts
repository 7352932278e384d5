import { randomBytes } from 'node:crypto';
import { base32crockford } from '@scure/base';

/** Prefixes of the ids the sandbox acquirer makes itself (payment ids come from src/shared/ids.ts). */
export type SandboxIdPrefix = 'ntf' | 'rf' | '3ds' | 'flt' | 'dsp' | 'dmv';

/** `<prefix>_` + 26 lowercase Crockford base32 characters of 128 random bits (URL-safe). */
export function randomId(prefix: SandboxIdPrefix): string {
  return `${prefix}_${base32crockford.encode(randomBytes(16)).toLowerCase()}`;
}
