import {
  binInRange,
  normalizeBinRange,
  normalizeDomain,
  normalizeEmail,
  normalizeFingerprint,
  normalizeIp,
  normalizeListedCountry,
  type BinRange,
} from './values.js';

/** What a list (`rl_…`) holds, one kind per list. */
export const LIST_KINDS = [
  'card_fingerprint',
  'email',
  'email_domain',
  'ip',
  'bin_range',
  'country',
] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/** Whose a list is: the operator's lists are the platform's (docs/decisions/0078-risk-rules.md). */
export type ListOwner = 'platform' | 'merchant';

/** `rl_` and the 29 characters of an id (`src/shared/ids.ts`). */
export const LIST_ID = /^rl_[0-9a-z]{29}$/;

/** What checking a rule needs to know of a list it names. */
export interface ListRef {
  readonly kind: ListKind;
  readonly owner: ListOwner;
}

/** A list's contents as the evaluator reads them: made once per version of the list by `prepareList`. */
export interface PreparedList extends ListRef {
  readonly id: string;
  readonly size: number;
  /** Whether the value (normalised as the evaluator reads it) is on the list. */
  has(value: string): boolean;
}

/**
 * A list entry in the form the list keeps, or `undefined` when the text is not an entry of that kind:
 * what the lists API answers a bad entry with.
 */
export function normalizeListEntry(kind: ListKind, text: string): string | undefined {
  const entry = text.trim();
  switch (kind) {
    case 'card_fingerprint':
      return normalizeFingerprint(entry);
    case 'email':
      return normalizeEmail(entry);
    case 'email_domain':
      return normalizeDomain(entry);
    case 'ip':
      return normalizeIp(entry);
    case 'country':
      return normalizeListedCountry(entry.toUpperCase());
    case 'bin_range':
      return normalizeBinRange(entry) === undefined ? undefined : entry;
  }
}

export interface ListContents extends ListRef {
  readonly id: string;
  readonly entries: Iterable<string>;
}

/**
 * A list ready for evaluation. Entries were checked when they were written: one that is not of the
 * list's kind is a bug, and throws.
 */
export function prepareList(list: ListContents): PreparedList {
  const normalized: string[] = [];
  for (const text of list.entries) {
    const entry = normalizeListEntry(list.kind, text);
    if (entry === undefined)
      throw new RangeError(`list ${list.id} holds an entry that is not a ${list.kind}`);
    normalized.push(entry);
  }
  const base = { id: list.id, kind: list.kind, owner: list.owner };
  if (list.kind === 'bin_range') return { ...base, ...binMatcher(normalized) };
  const entries = new Set(normalized);
  return { ...base, size: entries.size, has: (value) => entries.has(value) };
}

/** Prefixes by their length (one lookup per length a card's BIN can start with), ranges scanned. */
function binMatcher(entries: readonly string[]): Pick<PreparedList, 'size' | 'has'> {
  const prefixes = new Map<number, Set<string>>();
  const ranges: BinRange[] = [];
  for (const entry of new Set(entries)) {
    const range = normalizeBinRange(entry);
    if (range === undefined) continue;
    if (range.from !== range.to) ranges.push(range);
    else {
      const ofLength = prefixes.get(range.from.length) ?? new Set<string>();
      ofLength.add(range.from);
      prefixes.set(range.from.length, ofLength);
    }
  }
  return {
    size: ranges.length + [...prefixes.values()].reduce((sum, set) => sum + set.size, 0),
    has: (bin) => {
      for (const [length, set] of prefixes)
        if (bin.length >= length && set.has(bin.slice(0, length))) return true;
      return ranges.some((range) => binInRange(bin, range));
    },
  };
}
