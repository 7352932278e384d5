import type { SandboxAcquirerOptions } from './server.js';

/** The settings of `npm run sandbox-acquirer`, read from the environment. */
export interface SandboxAcquirerEnv {
  options: Omit<SandboxAcquirerOptions, 'logger'>;
  logLevel: string;
}

export const DEFAULT_SANDBOX_ACQUIRER_PORT = 3004;

/** Reads SANDBOX_ACQUIRER_* and LOG_LEVEL; throws an Error naming the variable that is missing or wrong. */
export function readSandboxAcquirerEnv(env: NodeJS.ProcessEnv): SandboxAcquirerEnv {
  const options: Omit<SandboxAcquirerOptions, 'logger'> = {
    apiKey: required(env, 'SANDBOX_ACQUIRER_API_KEY'),
    notificationSecret: required(env, 'SANDBOX_ACQUIRER_NOTIFICATION_SECRET'),
    port: port(env.SANDBOX_ACQUIRER_PORT),
    host: optional(env, 'SANDBOX_ACQUIRER_HOST') ?? '127.0.0.1',
  };
  const notificationUrl = optional(env, 'SANDBOX_ACQUIRER_NOTIFICATION_URL');
  if (notificationUrl !== undefined) options.defaultNotificationUrl = httpUrl(notificationUrl);
  const journalFile = optional(env, 'SANDBOX_ACQUIRER_JOURNAL');
  if (journalFile !== undefined) options.journalFile = journalFile;
  return {
    options: { ...options, ...readDisputeTimingEnv(env) },
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
  };
}

/**
 * SANDBOX_ACQUIRER_DISPUTE_DELAY_MS and SANDBOX_ACQUIRER_DISPUTE_DECISION_MS, as the options of
 * startSandboxAcquirer (absent when unset), for whoever starts the acquirer from code with the
 * environment's settings.
 */
export function readDisputeTimingEnv(
  env: NodeJS.ProcessEnv,
): Pick<SandboxAcquirerOptions, 'disputeDelayMs' | 'disputeDecisionMs'> {
  const timings: Pick<SandboxAcquirerOptions, 'disputeDelayMs' | 'disputeDecisionMs'> = {};
  const delay = milliseconds(env, 'SANDBOX_ACQUIRER_DISPUTE_DELAY_MS');
  if (delay !== undefined) timings.disputeDelayMs = delay;
  const decision = milliseconds(env, 'SANDBOX_ACQUIRER_DISPUTE_DECISION_MS');
  if (decision !== undefined) timings.disputeDecisionMs = decision;
  return timings;
}

function milliseconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = optional(env, name);
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,8}$/.test(value) || Number(value) > 86_400_000) {
    throw new Error(`${name} must be a whole number of milliseconds from 0 to 86400000.`);
  }
  return Number(value);
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = optional(env, name);
  if (value === undefined)
    throw new Error(`${name} is required (the sandbox acquirer cannot start without it).`);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function port(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_SANDBOX_ACQUIRER_PORT;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new Error('SANDBOX_ACQUIRER_PORT must be a port number from 0 to 65535.');
  }
  return parsed;
}

function httpUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error('SANDBOX_ACQUIRER_NOTIFICATION_URL must be an http or https URL.');
  }
  return value;
}
