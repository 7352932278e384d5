import { release } from './claim.js';
import type { Claimed, DispatcherState, WebhookDispatcherDeps } from './dispatcher-types.js';
import { record } from './record-outcome.js';
import { signatureHeaders } from './signing.js';
import { privateTargetAllowed } from './url-guard.js';

/**
 * Sends one delivery and records its outcome. `answered` is called when the endpoint is done with it
 * (answer, error or timeout): its endpoint slot frees up then, while the outcome waits for its write.
 */
export async function attempt(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  delivery: Claimed,
  answered: () => void,
): Promise<void> {
  // The last moment before anything leaves this process: a stop from here on hands the delivery back.
  if (state.stopping) {
    await release(deps, [delivery]);
    return;
  }
  const attemptedAt = deps.clock.now();
  const body = Buffer.from(JSON.stringify(delivery.payload));
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const outcome = await state.sender.send({
    url: delivery.url,
    body,
    headers: signatureHeaders(body, timestamp, {
      current: delivery.secret,
      previous: delivery.previousSecret,
    }),
    timeoutMs: deps.timeoutMs,
    resolver: deps.resolver,
    allowPrivate: privateTargetAllowed(delivery.url, deps),
  });
  answered();
  await record(deps, state, { delivery, attemptedAt, outcome });
}
