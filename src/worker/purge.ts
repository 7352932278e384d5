/**
 * Retention purges: deletes in batches until a batch deletes nothing (or `signal` is aborted), so no
 * statement holds many rows at once; returns how many rows went.
 */
export async function purgeInBatches(batch: () => Promise<number>, signal?: AbortSignal): Promise<number> {
  let total = 0;
  while (!signal?.aborted) {
    const deleted = await batch();
    total += deleted;
    if (deleted === 0) break;
  }
  return total;
}
