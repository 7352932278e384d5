import { createHmac } from 'node:crypto';
import type { Compilable, OperationNodeSource } from 'kysely';
import type { Kdb, Trx } from '../db/database.js';
import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './crypto.js';
import type { VersionedKey } from './secret-box.js';

/*
 * Idempotent writes, below every module (ADR 0074): what a service that writes a row holding an
 * idempotency key (a charge, a refund, a payout) needs to tell a retry from another request, and the seam
 * through which the HTTP layer stores a request's outcome in one statement with that write. The HTTP
 * layer (src/http/idempotency*.ts) builds on it; services and repositories import this, never that.
 */

/** Why a request may not reuse an idempotency key: another API key holds it, or another body. */
export type KeyReuse = 'other_api_key' | 'other_body';

/**
 * What tells two requests under one idempotency key apart (ADR 0054). A body can carry a customer's
 * 11-digit national ID number, which a plain SHA-256 kept in the database would give back to anyone with
 * a dump who tries them all: a fingerprint is `h1:<key version>:<hex HMAC-SHA-256>` under a key derived
 * from ENCRYPTION_KEYS (`box.deriveKeys('request-fingerprint')`).
 */
export interface RequestFingerprint {
  /** What is stored: the HMAC under the current (first) key. */
  value: string;
  /**
   * Every form in which the same request may already be stored: `value`, the HMAC under each older
   * configured key (a rotation within the 24 hours), and the plain SHA-256 hex of releases before ADR 0054.
   */
  forms: readonly string[];
}

export interface RequestFingerprints {
  of(request: string): RequestFingerprint;
}

const KEYED_FINGERPRINT = 'h1';

/** `keys`: derived keys, the current one first. */
export function createRequestFingerprints(keys: readonly VersionedKey[]): RequestFingerprints {
  if (keys.length === 0) throw new Error('request fingerprints need a key');
  return {
    of(request) {
      const keyed = keys.map(
        ({ version, key }) =>
          `${KEYED_FINGERPRINT}:${version}:${createHmac('sha256', key).update(request).digest('hex')}`,
      );
      return { value: keyed[0] as string, forms: [...keyed, sha256Hex(request)] };
    },
  };
}

/**
 * A data-modifying statement with a RETURNING clause (such as Kysely's `updateTable(...).returning('id')`),
 * precompiled with the outcome's statement (ADR 0060): `shape` names its text among every companion's
 * (its module's name first), `parameters` are its parameters in the order of its text, `statement` builds
 * it on `db` (compiled on the first execution of the shape only).
 */
export interface Companion<R> {
  shape: string;
  parameters: unknown[];
  statement(db: Kdb | Trx): Compilable<R> & OperationNodeSource;
}

/**
 * What a row that holds an idempotency key (a charge, payout or refund, ADRs 0051 and 0052) records of
 * the request that made it: the keyed fingerprint of `input` in canonical JSON (ADR 0054).
 */
export function requestFingerprint(fingerprints: RequestFingerprints, input: unknown): RequestFingerprint {
  return fingerprints.of(canonicalJson(input));
}

/**
 * Why a request may not continue or see the row that holds its idempotency key (spec section 4 rule 3),
 * or undefined when it is a retry of the request that made it: the same API key (`createdBy`, `caller`:
 * API key ids, null without one) and the same body. A row written without a fingerprint (before its
 * module recorded one, or by a process of the previous release during a deploy) is compared by
 * `sameAsRecorded`, on what the row recorded of its request.
 */
export function keyReuseOf(
  holder: { createdBy: string | null; fingerprint: string | null },
  retry: { caller: string | null; fingerprint: RequestFingerprint | undefined },
  sameAsRecorded: () => boolean,
): KeyReuse | undefined {
  if (holder.createdBy !== retry.caller) return 'other_api_key';
  const same =
    holder.fingerprint !== null
      ? retry.fingerprint !== undefined && retry.fingerprint.forms.includes(holder.fingerprint)
      : sameAsRecorded();
  return same ? undefined : 'other_body';
}

/**
 * The seam through which a write stores its request's outcome in one statement with itself (ADR 0046):
 * the HTTP layer hands it to the service when the request holds an idempotency claim
 * (`claimedOutcome` in src/http/idempotency.ts), and the service that writes uses it for its final
 * statement. `serialize` gives the exact bytes the answer will carry; `storeWith` records them together
 * with `companion` (`stored`: whether they were recorded, `rows`: what the companion returned).
 */
export interface OutcomeSeam<V> {
  serialize(view: V): string;
  storeWith<R>(
    outcome: { status: number; body: string },
    companion: Companion<R>,
  ): Promise<{ rows: R[]; stored: boolean }>;
}
