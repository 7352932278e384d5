import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, circularValue: Error, bigint: true });

/** JSON with object members sorted, so that member order and whitespace never change a fingerprint. */
export function canonicalJson(value: unknown): string {
  return stringify(value ?? null) ?? 'null';
}
