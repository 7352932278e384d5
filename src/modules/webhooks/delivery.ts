import { SECOND } from '../../shared/clock.js';
import { disableFailing } from './auto-disable.js';
import type { DispatcherState, WebhookDispatcherDeps } from './dispatcher-types.js';
import { deliverDue, pump, stop } from './pump.js';
import { purgeExpired } from './retention.js';
import { createWebhookSender } from './sender.js';

export interface WebhookDispatcher {
  /**
   * One round: claims the due deliveries its free slots allow (at most `perEndpoint` in flight per
   * endpoint) and sends them concurrently; resolves when their outcomes are recorded, with how many were
   * sent.
   */
  deliverDue(): Promise<number>;
  /**
   * The worker job: rounds until nothing is due and nothing is in flight (or `signal` is aborted, or the
   * budget is spent), claiming again as soon as slots free up; resolves with how many deliveries it
   * claimed. With `idlePollMs`, it does not return when idle: it looks again after that long, until the
   * budget is spent (the worker's job: new deliveries go out within about `idlePollMs`).
   */
  pump(budgetMs?: number, signal?: AbortSignal, idlePollMs?: number): Promise<number>;
  /**
   * Graceful stop: claims nothing more, releases at once what it claimed but has not sent (so
   * another worker or the next start sends it without waiting for the lease), and waits until `deadline`
   * for the attempts already sent, so that each is recorded and never sent twice.
   */
  stop(deadline?: number): Promise<void>;
  /** Disables endpoints failing for 5 days and e-mails their organization's owners. */
  disableFailing(): Promise<number>;
  /** Deletes attempts older than 30 days and finished deliveries older than 30 days (one batch). */
  purgeExpired(batchSize?: number): Promise<number>;
}

/**
 * The steps, each in its file: `claim.ts` (claiming due deliveries, FOR UPDATE SKIP LOCKED), `attempt.ts`
 * (sending one signed attempt), `record-outcome.ts` (the batched write of outcomes and the backoff),
 * `auto-disable.ts`, `retention.ts`, and `pump.ts` (the rounds, slots and graceful stop).
 */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const perEndpoint = Math.max(1, deps.perEndpoint ?? Math.floor(deps.concurrency / 4));
  const state: DispatcherState = {
    perEndpoint,
    random: deps.random ?? Math.random,
    // A claim outlives the longest attempt; a worker that dies mid-attempt leaves it due again after this.
    // The attempt itself ends at timeoutMs (the sender's own deadline); the rest covers recording it.
    leaseMs: 2 * deps.timeoutMs + 10 * SECOND,
    // Kept-alive connections, at most `perEndpoint` per endpoint address (ADR 0036).
    sender: createWebhookSender({ socketsPerTarget: perEndpoint }),
    inFlight: new Map<string, number>(),
    running: 0,
    ended: 0,
    stopping: false,
    attempts: new Set<Promise<unknown>>(),
    lastClaimEmpty: true,
    sleepers: new Set<() => void>(),
    unwritten: [],
    writing: false,
  };
  return {
    deliverDue: () => deliverDue(deps, state),
    pump: (budgetMs, signal, idlePollMs) => pump(deps, state, budgetMs, signal, idlePollMs),
    stop: (deadline) => stop(deps, state, deadline),
    disableFailing: () => disableFailing(deps),
    purgeExpired: (batchSize) => purgeExpired(deps, batchSize),
  };
}
