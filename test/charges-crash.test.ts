/**
 * The crash case of issue 5 (product decisions 14 and 15): the gateway process is killed (SIGKILL)
 * after the acquirer created the payment and before the gateway answered. After a restart, a retry with
 * the same idempotency key yields exactly one charge and one acquirer payment. Runs the real program
 * on the pass's database: the embedded one in a data directory on the PGlite pass, PostgreSQL on the other.
 */
import { describe, expect, it } from 'vitest';
import { acquirerControl } from './helpers/acquirer.js';
import {
  prepareProgramRun,
  programCleanups,
  programTargets,
  startProgram,
  withDatabase,
} from './helpers/crash.js';
import { request, validCharge, type ErrorBody, type HttpResult } from './helpers/http.js';
import { eventually } from './helpers/process.js';

const cleanups = programCleanups();

interface ChargeBody {
  id: string;
  providerPaymentId: string;
}

const CREDENTIALS = { apiKey: 'sa_crash_test_key', notificationSecret: 'crash-test-notification-secret' };

// The program on the pass's database: the embedded one on the PGlite pass, PostgreSQL on the other.
const targets = programTargets(cleanups);

describe.each(targets)('a gateway killed between the acquirer call and its answer, on $name', (target) => {
  it(
    'after a restart, a retry with the same key yields one charge and one payment',
    { timeout: 120_000 },
    async () => {
      // A merchant and its key, written before the program owns the database.
      const run = await prepareProgramRun(target, cleanups, {
        prefix: 'gw-crash-',
        credentials: CREDENTIALS,
      });
      const control = acquirerControl({ url: run.acquirer.url, apiKey: CREDENTIALS.apiKey });
      const env = run.env({
        ROLES: 'api,worker',
        ACQUIRER_TIMEOUT_MS: '5000',
        ACQUIRER_MAX_ATTEMPTS: '1',
        IDEMPOTENCY_LOCK_MS: '6000',
      });
      const body = validCharge();
      const idempotencyKey = `crash-${Date.now()}`;
      const post = (url: string): Promise<HttpResult<ChargeBody & ErrorBody>> =>
        request(`${url}/v1/charges`, {
          body,
          headers: { 'x-api-key': run.key.secret, 'x-idempotency-key': idempotencyKey },
        });

      const first = await startProgram(env, { timeoutMs: 90_000 });
      // The acquirer creates the payment, then sits on its answer; meanwhile the gateway dies.
      await control.addFault({
        operation: 'create_payment',
        action: 'delay_response',
        latencyMs: 60_000,
        times: 1,
      });
      const lost = post(first.url).catch((error: unknown) => error);
      // The acquirer records a call once it has done the work, before it starts sitting on the answer.
      let chargeId = '';
      await eventually(
        async () => {
          chargeId = (await control.calls('create_payment'))[0]?.reference ?? '';
          return chargeId !== '';
        },
        20_000,
        'the acquirer to create the payment',
      );
      expect(await control.paymentsFor(chargeId)).toHaveLength(1);
      await first.program.stop('SIGKILL', 20_000);
      expect(await lost).toBeInstanceOf(Error);

      const second = await startProgram(env, { timeoutMs: 90_000 });
      let retried: HttpResult<ChargeBody & ErrorBody> | undefined;
      const seen: string[] = [];
      // 409 duplicate_request until the dead request's lease (IDEMPOTENCY_LOCK_MS) lapses; a loaded
      // machine may take a while to serve the first requests of a freshly started process.
      await eventually(
        async () => {
          retried = await post(second.url);
          if (seen.length > 1000) seen.shift();
          seen.push(`${retried.status} ${retried.body.error?.code ?? ''}`);
          if (retried.status === 409) expect(retried.body.error.code).toBe('duplicate_request');
          else expect(retried.status, retried.text).toBe(201);
          return retried.status === 201;
        },
        90_000,
        'the retry to be answered',
        250,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}; first and last answers: ${[...seen.slice(0, 3), '…', ...seen.slice(-3)].join(', ')}`,
        );
      });
      const charge = retried?.body as ChargeBody;
      expect(charge.id).toBe(chargeId);
      const payments = await control.paymentsFor(charge.id);
      expect(payments.map((payment) => payment.id)).toEqual([charge.providerPaymentId]);
      // Every creation call the acquirer saw named that one charge.
      const creations = (await control.calls('create_payment')).map((call) => call.idempotencyKey);
      expect(new Set(creations)).toEqual(new Set([charge.id]));
      // A second retry replays the answer.
      const replay = await post(second.url);
      expect(replay.status).toBe(201);
      expect(replay.body.id).toBe(charge.id);

      await second.program.stop('SIGTERM', 30_000);
      await withDatabase(run.open, async ({ db }) => {
        const rows = await db
          .selectFrom('charges')
          .select(['id', 'creation_state', 'provider_payment_id'])
          .where('organization_id', '=', run.organizationId)
          .execute();
        expect(rows).toEqual([
          { id: charge.id, creation_state: 'created', provider_payment_id: charge.providerPaymentId },
        ]);
      });
    },
  );
});
