import { SECOND } from '../../shared/clock.js';
import { attempt } from './attempt.js';
import { claim } from './claim.js';
import type { Claimed, DispatcherState, WebhookDispatcherDeps } from './dispatcher-types.js';

/** How soon a pump with attempts in flight looks again for deliveries that became due. */
const BUSY_POLL_MS = 100;

/** `WebhookDispatcher.deliverDue`: one round, resolved when its outcomes are recorded. */
export async function deliverDue(deps: WebhookDispatcherDeps, state: DispatcherState): Promise<number> {
  const started: Promise<void>[] = [];
  const { sent } = await round(deps, state, (work) => started.push(work));
  await Promise.all(started);
  return sent;
}

/** `WebhookDispatcher.pump`: the worker job, rounds until idle, aborted or out of budget. */
export async function pump(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  budgetMs = 10 * SECOND,
  signal?: AbortSignal,
  idlePollMs?: number,
): Promise<number> {
  const deadline = Date.now() + budgetMs;
  const pollMs = idlePollMs ?? BUSY_POLL_MS;
  // While its attempts are in flight, a pump claims for an eighth of the slots at least, not for each
  // one as it frees up.
  const minClaim = Math.max(1, Math.floor(deps.concurrency / 8));
  let mine = 0;
  let total = 0;
  for (;;) {
    // Past the budget it returns without waiting: attempts still in flight keep their slots (the next
    // run claims around them). A stop waits for them itself (stop()), up to the shutdown deadline.
    if (Date.now() >= deadline || state.stopping || signal?.aborted) return total;
    const free = deps.concurrency - state.running;
    if (free <= 0 || (free < minClaim && mine > 0)) {
      // (Nearly) every slot is taken: the next claim as soon as enough free up.
      await pause(state, deadline - Date.now(), signal);
      continue;
    }
    const endedBefore = state.ended;
    const { sent, taken } = await round(deps, state, (work) => {
      mine += 1;
      void work.finally(() => (mine -= 1));
    });
    total += sent;
    // A full round: there may be more due at once. Attempts that ended during the claim freed slots
    // (and uncapped endpoints) the claim did not see, and deliveries finished unsent (their kind no
    // longer selected) left their endpoint's window free: look again at once too.
    if (taken === free || taken > sent || state.ended !== endedBefore) continue;
    if (sent === 0 && mine === 0) {
      if (idlePollMs === undefined) return total;
      await pause(state, Math.min(idlePollMs, deadline - Date.now()), signal);
      continue;
    }
    // What is left due (if anything) waits for its endpoint's slots, or is not due yet: look again
    // when an attempt ends, or after a short while for new deliveries.
    await pause(state, Math.min(pollMs, deadline - Date.now()), signal);
  }
}

/** `WebhookDispatcher.stop`: the graceful stop. */
export async function stop(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  deadline = Number.POSITIVE_INFINITY,
): Promise<void> {
  state.stopping = true;
  wakeAll(state);
  // A claim under way when the stop came starts (and so releases) its deliveries afterwards: wait
  // until nothing is left, not only for what was running at the start.
  while (state.attempts.size > 0 && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    const left = deadline - Date.now();
    const waited = Promise.allSettled([...state.attempts]);
    await (Number.isFinite(left)
      ? Promise.race([waited, new Promise((resolve) => (timer = setTimeout(resolve, left)))])
      : waited);
    clearTimeout(timer);
  }
  if (state.attempts.size > 0) {
    deps.logger.warn(
      { attempts: state.attempts.size },
      'shutdown deadline reached with webhook attempts in flight; they are sent again after their lease',
    );
  } else {
    state.sender.close();
  }
}

/** One claim and the start of its attempts: how many it sends, and how many rows it took in all. */
async function round(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  onStarted: (work: Promise<void>) => void,
): Promise<{ sent: number; taken: number }> {
  if (state.stopping) return { sent: 0, taken: 0 };
  // The claim and the start of its attempts are one tracked step: a stop that arrives during the claim
  // finds every attempt (or hand-back) registered by the time the claim settles.
  const claiming = claim(deps, state, deps.concurrency - state.running).then(({ deliveries, taken }) => {
    for (const delivery of deliveries) start(deps, state, delivery, onStarted);
    return { sent: deliveries.length, taken };
  });
  state.attempts.add(claiming);
  return claiming.finally(() => state.attempts.delete(claiming));
}

function start(
  deps: WebhookDispatcherDeps,
  state: DispatcherState,
  delivery: Claimed,
  onStarted: (work: Promise<void>) => void,
): void {
  // A slot of the worker is held until the outcome is written; one of the endpoint's, while the endpoint
  // has the request.
  state.running += 1;
  state.inFlight.set(delivery.endpointId, (state.inFlight.get(delivery.endpointId) ?? 0) + 1);
  let answered = false;
  const leaveEndpoint = () => {
    if (answered) return;
    answered = true;
    state.ended += 1;
    const left = (state.inFlight.get(delivery.endpointId) ?? 1) - 1;
    if (left <= 0) state.inFlight.delete(delivery.endpointId);
    else state.inFlight.set(delivery.endpointId, left);
    wakeAll(state);
  };
  const work = attempt(deps, state, delivery, leaveEndpoint)
    .catch((error: unknown) =>
      deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt could not be recorded'),
    )
    .finally(() => {
      state.running -= 1;
      state.ended += 1;
      leaveEndpoint();
      state.attempts.delete(work);
      wakeAll(state);
    });
  state.attempts.add(work);
  onStarted(work);
}

function wakeAll(state: DispatcherState): void {
  for (const wake of [...state.sleepers]) wake();
}
/** Resolves after `ms`, or sooner when a slot frees up, `signal` is aborted or the dispatcher stops. */
function pause(state: DispatcherState, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
      state.sleepers.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, Math.max(1, ms));
    signal?.addEventListener('abort', wake, { once: true });
    state.sleepers.add(wake);
  });
}
