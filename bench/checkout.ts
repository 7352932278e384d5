/**
 * The hosted checkout of `npm run bench` (issue 16 item 5; docs/benchmarks.md "Checkout"): a customer
 * paying on the checkout page, `GET /c/{paymentId}` of an unpaid card charge and the card form's
 * `POST /c/{paymentId}/card`, through the gateway's web listener, each beside the SQL ceiling of the same
 * request, as the `charges` table grows.
 *
 * For each size:
 * 1. The template database of the charges section (bench/charges.ts `template`): `size` charges over
 *    10 organizations, the first one measured. Two copies of it, one per phase.
 * 2. The ceilings, on their copy: a gateway in the bench's process (roles api and sandbox-acquirer, the
 *    acquirer's notifications dropped) creates charges through the API; after one warm-up page and payment,
 *    one page and one payment are recorded (every statement node-postgres's client sends, with the rows
 *    each returned). The page's statements are replayed as they are; the payment's against charges of
 *    their own, one per replay, cloned in SQL from a charge the API created (fresh ids, payment id,
 *    reference and key), each replay's event ids fresh and the ids the database returns (the journal
 *    entry's) carried to the statements that use them.
 * 3. The endpoint, on its copy: the built gateway in a process of its own (role api,
 *    TRUSTED_PROXIES=127.0.0.1; the sandbox acquirer in a program of its own, notifications dropped)
 *    under autocannon: the page of one
 *    unpaid charge for BENCH_DURATION_S (200s counted), then one card post per charge created through the
 *    API before the timed phase, each from an address of its own (X-Forwarded-For: the checkout's per-IP
 *    limit is per customer), 303s counted, and the charges the posts paid counted in the database.
 * Each payment phase first pays a warm-up pool of charges; its rate sizes the measured pool so that the
 * phase lasts about BENCH_DURATION_S.
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type autocannon from 'autocannon';
import pg from 'pg';
import { REQUEST_LOG_FLUSH_MS } from '../src/modules/api-keys/request-log.js';
import { ID_PREFIXES, newId, type IdPrefix } from '../src/shared/ids.js';
import { dropDatabase } from '../test/helpers/database.js';
import { acquirerControl } from '../test/helpers/acquirer.js';
import { startRecordingGateway, withApiGateway } from './acquirer.js';
import { chargeBody, createDatabaseFrom, letters, shapes, template } from './charges.js';
import {
  capture,
  load,
  loop,
  ratio,
  round,
  withClient,
  type Measurement,
  type Statement,
} from './measure.js';

export interface CheckoutBenchOptions {
  sizes: readonly number[];
  durationS: number;
  connections: number;
  /** Organizations the seeded charges are spread over (default 10); the first one is measured. */
  merchants?: number;
}

const log = (message: string) => console.error(`[bench checkout] ${message}`);

/** The success status of the card post: a redirect to the charge's page, which then shows the outcome. */
const PAID_REDIRECT = 303;
/** The sandbox's Visa test card that succeeds without 3-D Secure (docs/sandbox-acquirer.md). */
const CARD_FORM = new URLSearchParams({
  holderName: 'Bench Payer',
  cardNumber: '4242424242424242',
  expiry: '12/30',
  cvc: '123',
}).toString();
/** What a browser sends with the checkout's own form post (docs/checkout.md "Security"). */
const FORM_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
  'sec-fetch-site': 'same-origin',
  origin: 'null',
};
const ID = new RegExp(`\\b(?:${ID_PREFIXES.join('|')})_[0-9a-hjkmnp-tv-z]{29}\\b`, 'g');

/** A charge of the measured merchant, unpaid. */
interface Unpaid {
  id: string;
  paymentId: string;
  reference: string;
}

/** The card post's statements and the values of the charge it paid, replaced on each replay. */
interface RecordedPayment {
  statements: Statement[];
  charge: Unpaid;
  /** Ids the request made (the event's): fresh ones on each replay. */
  made: string[];
  transactions: number;
}

const transactionsIn = (statements: Statement[]) =>
  statements.filter((statement) => /^\s*begin\b/i.test(statement.text)).length;

/** Payer `index`'s own address: the checkout's rate limit is per IP, one customer each. */
const payerAddress = (index: number) => `10.${(index >>> 16) & 255}.${(index >>> 8) & 255}.${index & 255}`;

function createCharges(api: string, secret: string, count: number, connections: number) {
  const charges: Unpaid[] = [];
  const one = async () => {
    const reference = letters();
    const response = await fetch(`${api}/v1/charges`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'content-type': 'application/json', 'x-idempotency-key': letters() },
      body: JSON.stringify(chargeBody(reference)),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`POST /v1/charges answered ${response.status}: ${text}`);
    const charge = JSON.parse(text) as { id: string; providerPaymentId: string; merchantReference: string };
    charges.push({ id: charge.id, paymentId: charge.providerPaymentId, reference: charge.merchantReference });
  };
  let started = 0;
  return Promise.all(
    Array.from({ length: Math.min(connections, count) }, async () => {
      while (started < count) {
        started++;
        await one();
      }
    }),
  ).then(() => charges);
}

async function dropNotifications(acquirer: { url: string; apiKey: string }) {
  await acquirerControl(acquirer).addFault({ operation: 'notification', action: 'drop' });
}

/**
 * Of the charges `ids`: how many are paid, and how many have their ledger entry with its postings summing
 * to zero (a replay must carry the entry's id to its postings).
 */
async function outcomes(url: string, ids: readonly string[]): Promise<{ paid: number; posted: number }> {
  return withClient(url, async (client) => {
    const { rows } = await client.query<{ paid: string; posted: string }>(
      `SELECT (SELECT count(*) FROM charges WHERE id = ANY($1::text[]) AND status = 'succeeded') AS paid,
         (SELECT count(*) FROM journal_entries j
          WHERE j.kind = 'charge_succeeded' AND j.source_id = ANY($1::text[])
            AND (SELECT count(*) = 3 AND sum(amount) = 0 FROM ledger_postings p WHERE p.entry_id = j.id)) AS posted`,
      [ids],
    );
    return { paid: Number(rows[0]?.paid ?? 0), posted: Number(rows[0]?.posted ?? 0) };
  });
}

/**
 * One page and one card payment recorded on a gateway in this process, and a charge the API created and
 * nobody paid (the model of the replays' charges). The acquirer's notifications are dropped so that no
 * other request's statements land in the recording; the request log's timer has flushed before each.
 */
async function record(url: string, secret: string) {
  const gateway = await startRecordingGateway(url);
  try {
    await dropNotifications(gateway.sandboxAcquirer);
    const web = gateway.urls.web ?? '';
    const [warm, paid, model] = await createCharges(gateway.urls.sandboxApi ?? '', secret, 3, 1);
    if (!warm || !paid || !model) throw new Error('the API created no charges');
    const page = async (charge: Unpaid) => {
      const response = await fetch(`${web}/c/${charge.paymentId}?lang=en`);
      const text = await response.text();
      if (response.status !== 200 || !text.includes('cardNumber'))
        throw new Error(`GET /c/{paymentId} answered ${response.status} without the card form`);
    };
    const pay = async (charge: Unpaid) => {
      const response = await fetch(`${web}/c/${charge.paymentId}/card?lang=en`, {
        method: 'POST',
        redirect: 'manual',
        headers: FORM_HEADERS,
        body: CARD_FORM,
      });
      const text = await response.text();
      if (response.status !== PAID_REDIRECT)
        throw new Error(`POST /c/{paymentId}/card answered ${response.status}: ${text.slice(0, 300)}`);
    };
    await page(warm);
    await pay(warm);
    const quiet = () => sleep(REQUEST_LOG_FLUSH_MS * 1.5);
    await quiet();
    const paged = await capture(() => page(model));
    await quiet();
    const posted = await capture(() => pay(paid));
    const recordedOutcome = await outcomes(url, [paid.id]);
    if (recordedOutcome.paid !== 1 || recordedOutcome.posted !== 1)
      throw new Error('the recorded card post did not pay its charge');
    const foreign = [...paged.statements, ...posted.statements].find((statement) =>
      /provider_notifications|api_key_requests|api_keys/.test(statement.text),
    );
    if (foreign) throw new Error(`another request's statement was recorded: ${foreign.text.slice(0, 120)}`);
    const keep = new Set([paid.id, paid.paymentId]);
    const made = new Set<string>();
    for (const statement of posted.statements)
      for (const value of statement.values)
        if (typeof value === 'string')
          for (const id of value.match(ID) ?? []) if (!keep.has(id) && !id.startsWith('org_')) made.add(id);
    return {
      page: { statements: paged.statements, transactions: transactionsIn(paged.statements) },
      pay: {
        statements: posted.statements,
        charge: paid,
        made: [...made],
        transactions: transactionsIn(posted.statements),
      } satisfies RecordedPayment,
      model,
    };
  } finally {
    await gateway.close();
  }
}

/** `count` unpaid charges cloned in SQL from `model` (a pending charge the API created), fresh unique values. */
async function cloneUnpaid(url: string, model: string, count: number): Promise<Unpaid[]> {
  const now = new Date();
  const charges = Array.from({ length: count }, () => ({
    id: newId('ch', now),
    paymentId: newId('pay', now),
    reference: `bench-${letters()}`,
  }));
  await withClient(url, async (client) => {
    for (let from = 0; from < charges.length; from += 10_000) {
      const chunk = charges.slice(from, from + 10_000);
      await client.query(
        `INSERT INTO charges
         SELECT (jsonb_populate_record(c, to_jsonb(c) || jsonb_build_object(
           'id', n.id, 'provider_payment_id', n.payment_id, 'merchant_reference', n.reference,
           'idempotency_key', n.key))).*
         FROM charges c, unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS n(id, payment_id, reference, key)
         WHERE c.id = $1`,
        [
          model,
          chunk.map((charge) => charge.id),
          chunk.map((charge) => charge.paymentId),
          chunk.map((charge) => charge.reference),
          chunk.map(() => letters()),
        ],
      );
    }
  });
  return charges;
}

/** `value` with each recorded string replaced by its fresh counterpart (inside JSON payloads too). */
function substitute(value: unknown, pairs: ReadonlyArray<readonly [string, string]>): unknown {
  if (typeof value !== 'string') return value;
  let text = value;
  for (const [from, to] of pairs) text = text.split(from).join(to);
  return text;
}

/**
 * Statements replayed through node-postgres, `connections` at a time, each replay for `charges[index]`
 * (none: as recorded), for `durationS` or until the charges are used up. An id a `returning "id"`
 * statement got back (the journal entry's) is replaced, wherever a later statement sends it, by the id the
 * replay got back.
 */
async function replay(
  url: string,
  recorded: { statements: Statement[]; charge?: Unpaid; made?: string[] },
  options: { durationS: number; connections: number; charges?: readonly Unpaid[] },
): Promise<Measurement> {
  const pool = new pg.Pool({ connectionString: url, max: options.connections });
  // An idle connection the server ends (the copy dropped WITH (FORCE) right after) must not crash the bench.
  pool.on('error', () => undefined);
  const charges = options.charges;
  try {
    return await loop(
      async (index) => {
        const pairs: Array<readonly [string, string]> = [];
        const { charge } = recorded;
        const target = charges?.[index];
        if (charge && target)
          pairs.push(
            [charge.id, target.id],
            [charge.paymentId, target.paymentId],
            [charge.reference, target.reference],
          );
        for (const made of recorded.made ?? [])
          pairs.push([made, newId(made.slice(0, made.indexOf('_')) as IdPrefix)]);
        const returned = new Map<string, unknown>();
        const client = await pool.connect();
        try {
          for (const statement of recorded.statements) {
            const values = statement.values.map((value) =>
              typeof value === 'string' && returned.has(value)
                ? returned.get(value)
                : substitute(value, pairs),
            );
            const result = await client.query(statement.text, values);
            if (/returning "id"\s*$/i.test(statement.text)) {
              const before = (statement.rows?.[0] as { id?: unknown } | undefined)?.id;
              const now = (result.rows[0] as { id?: unknown } | undefined)?.id;
              if (before !== undefined && now === undefined)
                throw new Error(`the replay of "${statement.text.slice(0, 60)}" returned no row`);
              if (before !== undefined) returned.set(String(before), now);
            }
          }
          return true;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release();
        }
      },
      options.durationS,
      options.connections,
      charges?.length,
    );
  } finally {
    await pool.end();
  }
}

/** A warm-up pool of charges paid first; its rate sizes the measured pool to last about `durationS`. */
const warmUpPool = (connections: number) => Math.max(50, connections * 4);
const measuredPool = (warmRate: number, durationS: number, connections: number) =>
  Math.max(connections, Math.ceil(warmRate * durationS));

async function ceilings(url: string, secret: string, options: { durationS: number; connections: number }) {
  const recorded = await record(url, secret);
  const page = await replay(url, recorded.page, options);
  const warm = await replay(url, recorded.pay, {
    ...options,
    durationS: options.durationS * 10,
    charges: await cloneUnpaid(url, recorded.model.id, warmUpPool(options.connections)),
  });
  const charges = await cloneUnpaid(
    url,
    recorded.model.id,
    measuredPool(warm.requestsPerSecond, options.durationS, options.connections),
  );
  const pay = await replay(url, recorded.pay, { ...options, durationS: options.durationS * 10, charges });
  return {
    recorded,
    page,
    pay: {
      ...pay,
      charges: charges.length,
      ...(await outcomes(
        url,
        charges.map((charge) => charge.id),
      )),
    },
  };
}

async function endpoint(url: string, secret: string, options: { durationS: number; connections: number }) {
  return withApiGateway(
    {
      TRUSTED_PROXIES: '127.0.0.1',
      DATABASE_URL: url,
      DATABASE_POOL_SIZE: String(options.connections),
    },
    async (_gateway, urls, acquirer) => {
      const api = urls.sandboxApi ?? '';
      const web = urls.web ?? '';
      await dropNotifications(acquirer);
      const create = (count: number) => createCharges(api, secret, count, options.connections);

      const [shown] = await create(1);
      const paging: autocannon.Options = {
        url: `${web}/c/${shown?.paymentId ?? 'pay_missing'}?lang=en`,
        connections: options.connections,
        duration: options.durationS,
      };
      // A few requests first: the gateway's first requests compile and connect.
      await load({ ...paging, duration: 2 });
      const page = await load(paging);

      let payer = 0;
      const paying = (charges: readonly Unpaid[]): autocannon.Options => {
        let next = 0;
        return {
          url: web,
          connections: Math.min(options.connections, charges.length),
          amount: charges.length,
          requests: [
            {
              method: 'POST',
              setupRequest: (request) => {
                const charge = charges[next++ % charges.length];
                request.path = `/c/${charge?.paymentId ?? 'pay_missing'}/card?lang=en`;
                request.headers = { ...FORM_HEADERS, 'x-forwarded-for': payerAddress(payer++) };
                request.body = CARD_FORM;
                return request;
              },
            },
          ],
        };
      };
      const warmCharges = await create(warmUpPool(options.connections));
      const warm = await load(paying(warmCharges), { success: PAID_REDIRECT });
      const charges = await create(
        measuredPool(warm.requestsPerSecond, options.durationS, options.connections),
      );
      const pay = await load(paying(charges), { success: PAID_REDIRECT });
      return {
        page,
        pay: {
          ...pay,
          charges: charges.length,
          ...(await outcomes(
            url,
            charges.map((charge) => charge.id),
          )),
        },
      };
    },
  );
}

export async function benchCheckout(options: CheckoutBenchOptions) {
  const sizes = [...new Set(options.sizes)].sort((a, b) => a - b);
  const merchants = options.merchants ?? 10;
  const settings = { durationS: options.durationS, connections: options.connections };
  const results = [];
  for (const size of sizes) {
    log(`size ${size}: seeding`);
    const seed = await template(size, merchants);
    const loadAtStart = os.loadavg().map(round);
    try {
      const ceilingUrl = await createDatabaseFrom(seed.url);
      let ceiling: Awaited<ReturnType<typeof ceilings>>;
      try {
        log(`size ${size}: recording a page and a card payment, then the SQL ceilings`);
        ceiling = await ceilings(ceilingUrl, seed.secret, settings);
      } finally {
        await dropDatabase(ceilingUrl);
      }
      const endpointUrl = await createDatabaseFrom(seed.url);
      let measured: Awaited<ReturnType<typeof endpoint>>;
      try {
        log(`size ${size}: the checkout endpoints`);
        measured = await endpoint(endpointUrl, seed.secret, settings);
      } finally {
        await dropDatabase(endpointUrl);
      }
      const { recorded } = ceiling;
      results.push({
        charges: size,
        seedMs: seed.seedMs,
        loadAverage: { start: loadAtStart, end: os.loadavg().map(round) },
        'GET /c/{paymentId}': {
          ...measured.page,
          sqlCeiling: ceiling.page,
          ratioToSqlCeiling: ratio(measured.page.requestsPerSecond, ceiling.page.requestsPerSecond),
          statements: recorded.page.statements.length,
          statementShapes: shapes(recorded.page.statements),
        },
        'POST /c/{paymentId}/card': {
          ...measured.pay,
          sqlCeiling: ceiling.pay,
          ratioToSqlCeiling: ratio(measured.pay.requestsPerSecond, ceiling.pay.requestsPerSecond),
          statements: recorded.pay.statements.length,
          transactions: recorded.pay.transactions,
          statementShapes: shapes(recorded.pay.statements),
        },
      });
    } finally {
      await dropDatabase(seed.url);
    }
  }
  return results;
}
