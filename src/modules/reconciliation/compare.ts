import type { Insertable } from 'kysely';
import type {
  ReconciliationDifferenceKind,
  ReconciliationDifferencesTable,
  ReconciliationItem,
} from '../../db/schema.js';
import type { ClearingMovement } from '../ledger/service.js';
import type { ItemAtAcquirer, ReconciliationDeps } from './types.js';

/** A difference as `compare` finds it: the run and its position are given when the run is recorded. */
export type NewDifference = Omit<Insertable<ReconciliationDifferencesTable>, 'run_id' | 'position'>;

/** One side of a matched pair, or an item only one side has. */
export interface AcquirerItem {
  id: string;
  amount: bigint;
  at: string;
}

/**
 * One kind of item: pairs the acquirer's items of the date with the ledger's by the acquirer's id; an
 * item only one side has on the date is looked for on the other side's neighbouring dates (timing).
 */
export async function compare(
  deps: Pick<ReconciliationDeps, 'ledger'>,
  input: {
    item: ReconciliationItem;
    acquirerItems: AcquirerItem[];
    movements: ClearingMovement[];
    kind: ClearingMovement['kind'];
    ours: (ids: readonly string[]) => Promise<ItemAtAcquirer[]>;
    byProviderIds: (ids: readonly string[]) => Promise<ItemAtAcquirer[]>;
    elsewhere: (providerId: string) => Promise<AcquirerItem | undefined>;
  },
): Promise<NewDifference[]> {
  const found: NewDifference[] = [];
  const difference = (
    kind: ReconciliationDifferenceKind,
    acquirerItem: AcquirerItem | undefined,
    ours: { item?: ItemAtAcquirer | undefined; movement?: ClearingMovement | undefined },
    providerId: string | null,
  ) =>
    found.push({
      kind,
      item: input.item,
      provider_id: providerId,
      gateway_id: ours.movement?.sourceId ?? ours.item?.id ?? null,
      organization_id: ours.movement?.organizationId ?? ours.item?.organizationId ?? null,
      acquirer_amount: acquirerItem?.amount.toString() ?? null,
      ledger_amount: ours.movement?.amount.toString() ?? null,
      acquirer_at: acquirerItem ? new Date(acquirerItem.at) : null,
      ledger_at: ours.movement?.bookedAt ?? null,
    });

  const itemsOfMovements = new Map(
    (await input.ours(input.movements.map((m) => m.sourceId))).map((item) => [item.id, item]),
  );
  const movementByProvider = new Map<string, ClearingMovement>();
  for (const movement of input.movements) {
    const providerId = itemsOfMovements.get(movement.sourceId)?.providerId;
    if (providerId) movementByProvider.set(providerId, movement);
  }

  const matched = new Set<string>();
  const unmatched: AcquirerItem[] = [];
  // A line the report repeats is settled twice by the acquirer: the ledger has one entry for it at most.
  const seen = new Set<string>();
  const repeated: AcquirerItem[] = [];
  for (const acquirerItem of input.acquirerItems) {
    if (seen.has(acquirerItem.id)) {
      repeated.push(acquirerItem);
      continue;
    }
    seen.add(acquirerItem.id);
    const movement = movementByProvider.get(acquirerItem.id);
    if (!movement) {
      unmatched.push(acquirerItem);
      continue;
    }
    matched.add(movement.sourceId);
    if (movement.amount !== acquirerItem.amount) {
      difference('amount_mismatch', acquirerItem, { movement }, acquirerItem.id);
    }
  }

  // The acquirer's items the ledger did not book on the date: booked on another date, or not at all.
  const known = new Map(
    (await input.byProviderIds([...unmatched, ...repeated].map((item) => item.id))).map((item) => [
      item.providerId,
      item,
    ]),
  );
  const bookedElsewhere = new Map(
    (
      await deps.ledger.clearingMovementsOf(
        input.kind,
        [...known.values()].map((item) => item.id),
      )
    ).map((movement) => [movement.sourceId, movement]),
  );
  for (const acquirerItem of unmatched) {
    const item = known.get(acquirerItem.id);
    const movement = item && bookedElsewhere.get(item.id);
    if (!movement) difference('missing_in_ledger', acquirerItem, { item }, acquirerItem.id);
    else {
      const kind = movement.amount === acquirerItem.amount ? 'timing' : 'amount_mismatch';
      difference(kind, acquirerItem, { item, movement }, acquirerItem.id);
    }
  }
  for (const acquirerItem of repeated) {
    difference('missing_in_ledger', acquirerItem, { item: known.get(acquirerItem.id) }, acquirerItem.id);
  }

  // The ledger's items of the date the acquirer did not report on it: on a neighbouring date, or not at all.
  for (const movement of input.movements) {
    if (matched.has(movement.sourceId)) continue;
    const item = itemsOfMovements.get(movement.sourceId);
    const providerId = item?.providerId ?? null;
    const acquirerItem = providerId === null ? undefined : await input.elsewhere(providerId);
    if (!acquirerItem) difference('missing_at_acquirer', undefined, { item, movement }, providerId);
    else {
      const kind = movement.amount === acquirerItem.amount ? 'timing' : 'amount_mismatch';
      difference(kind, acquirerItem, { item, movement }, providerId);
    }
  }
  return found;
}
