import type { Logger } from 'pino';
import type { Kdb, Trx } from '../../db/database.js';
import type { Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../../shared/secret-box.js';
import type { EmailService } from '../email/service.js';
import type { EventLookup } from '../events/lookup.js';
import type { AttemptOutcome, WebhookSender } from './sender.js';
import type { HostResolver } from './url-guard.js';

// The types the dispatcher's steps share (`claim.ts`, `attempt.ts`, `record-outcome.ts`, `pump.ts`, …),
// below every step: a step imports them from here, never from another step or from `delivery.ts`.

export interface WebhookDispatcherDeps {
  db: Kdb;
  clock: Clock;
  box: SecretBox;
  mailer: EmailService;
  /** The payloads of the events to deliver, read through the events module. */
  events: Pick<EventLookup, 'byIds'>;
  /** The e-mail addresses of an organization's active owners, read by the users module in `trx`. */
  ownerEmails: (trx: Trx, organizationId: string) => Promise<string[]>;
  logger: Logger;
  resolver: HostResolver;
  allowPrivateTargets: boolean;
  /** Origins endpoints may target on private addresses (`WEBHOOK_PRIVATE_TARGET_ORIGINS`, ADR 0059). */
  privateTargetOrigins?: readonly string[];
  timeoutMs: number;
  concurrency: number;
  /** Attempts in flight to one endpoint from this process; default a quarter of `concurrency` (at least 1). */
  perEndpoint?: number;
  dashboardUrl: () => string;
  /** In [0, 1); injectable for tests of the jitter bounds. */
  random?: () => number;
}

/** A delivery a claim took, with what its attempt sends. */
export interface Claimed {
  id: string;
  leaseToken: string;
  endpointId: string;
  attempts: number;
  eventId: string;
  organizationId: string;
  environment: Environment;
  url: string;
  payload: unknown;
  secret: string;
  previousSecret: string | null;
}

/** An attempt that ended: its delivery, when it was sent and what came back. */
export interface Finished {
  delivery: Claimed;
  attemptedAt: Date;
  outcome: AttemptOutcome;
}
/** An outcome waiting for the next write, with the callbacks of its attempt. */
export type Unwritten = Finished & { written: () => void; failed: (error: unknown) => void };

/**
 * What one dispatcher (one process) keeps between its calls: its settings, its slots, the claims and
 * attempts under way and the outcomes waiting for their write. Made once by `createWebhookDispatcher`.
 */
export interface DispatcherState {
  /** Attempts in flight to one endpoint from this process. */
  readonly perEndpoint: number;
  readonly random: () => number;
  /** How long a claim holds its deliveries (`createWebhookDispatcher` says why). */
  readonly leaseMs: number;
  /** Kept-alive connections, at most `perEndpoint` per endpoint address (ADR 0036). */
  readonly sender: WebhookSender;
  /** Attempts in flight per endpoint. */
  readonly inFlight: Map<string, number>;
  /** Slots of the worker taken (held until the outcome is written). */
  running: number;
  /** Slots freed (an endpoint's or the worker's) in this process so far. */
  ended: number;
  stopping: boolean;
  /** Every claim and attempt under way in this process, whichever call started it. */
  readonly attempts: Set<Promise<unknown>>;
  /** Whether this process's last claim took nothing: its next claim probes for anything pending first. */
  lastClaimEmpty: boolean;
  /** Pumps waiting for a slot or for their next look. */
  readonly sleepers: Set<() => void>;
  /** Outcomes waiting for the next write, each with the callbacks of its attempt. */
  readonly unwritten: Unwritten[];
  writing: boolean;
}
