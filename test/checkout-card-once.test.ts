/**
 * A card is sent to the acquirer once (docs/decisions/0065-card-attempt-claim.md): the checkout claims a
 * card attempt in the database before it calls the acquirer, so simultaneous submissions of the card form
 * send one card and the others are shown "payment in progress"; a claim a crashed process left holds the
 * charge only until its lease runs out. Counted by the sandbox acquirer itself (`GET /_control/calls`
 * with `operation=authorize&paymentId=…`), over HTTP against the running gateway. On PostgreSQL the
 * submissions race for the row for real; on PGlite (one connection) they interleave at every await.
 */
import { describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../sandbox-acquirer/cards.js';
import { acquirerControl, errorFault, latencyFault } from './helpers/acquirer.js';
import { t, useTestGateway, web, eventsOf } from './helpers/suite.js';
import { postCharge, readCharge, freshCardNumber } from './helpers/charges.js';
import { createMerchant, type Merchant } from './helpers/merchants.js';

interface ChargeBody {
  id: string;
  status: string;
  providerPaymentId: string;
  providerStatus: string;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** The default attempt limit, as in the report: eight posts once reached the acquirer two or three times. */
const ATTEMPTS = 3;
const SIMULTANEOUS = 8;
let merchant: Merchant;
let control: ReturnType<typeof acquirerControl>;
let addresses = 0;

useTestGateway(
  {
    env: {
      CHECKOUT_CARD_ATTEMPTS: String(ATTEMPTS),
      // Room for the latency faults below on a loaded machine.
      ACQUIRER_TIMEOUT_MS: '10000',
      // Each test is one customer with an address of its own: the card form's per-address rate limit
      // (30 a minute) is not what this file is about.
      TRUSTED_PROXIES: '127.0.0.1',
    },
  },
  async () => {
    merchant = await createMerchant(t);
    control = acquirerControl(t.sandboxAcquirer);
  },
);

const db = () => t.gateway.database.db;

/** A customer: their own address, and the checkout's pages and forms as their browser sends them. */
function customer() {
  addresses++;
  const address = `198.51.100.${addresses}`;
  const fetchManual = async (url: string, init: RequestInit = {}): Promise<Answer> => {
    const response = await fetch(url, {
      redirect: 'manual',
      ...init,
      headers: { 'x-forwarded-for': address, ...(init.headers as Record<string, string> | undefined) },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  return {
    page: (paymentId: string, lang = 'en') => fetchManual(`${web}/c/${paymentId}?lang=${lang}`),
    postCard: (paymentId: string, number: string, lang = 'en') =>
      fetchManual(`${web}/c/${paymentId}/card?lang=${lang}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          holderName: 'Ayşe Yılmaz',
          cardNumber: number,
          expiry: '12/30',
          cvc: '123',
        }).toString(),
      }),
    fetchManual,
  };
}

async function createCharge(): Promise<ChargeBody> {
  return postCharge<ChargeBody>(t, merchant);
}

async function getCharge(id: string): Promise<ChargeBody> {
  const res = await readCharge<ChargeBody>(t, merchant, id);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** What the acquirer itself counted: the authorize calls it received for the payment, refused ones too. */
async function authorizations(paymentId: string): Promise<number> {
  return (await control.calls('authorize', paymentId)).length;
}

async function chargeRow(id: string) {
  return db()
    .selectFrom('charges')
    .select(['card_attempts', 'card_attempt_claimed_until'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function expectRedirectToPage(answer: Answer, paymentId: string, lang = 'en') {
  expect(answer.status, answer.text).toBe(303);
  expect(answer.headers.get('location')).toBe(`/c/${paymentId}?lang=${lang}`);
}

function expectInProgressPage(answer: Answer, paymentId: string, lang: 'en' | 'tr') {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.text).toContain(lang === 'en' ? 'Payment in progress' : 'Ödemeniz işleniyor');
  expect(answer.text).toContain(
    lang === 'en' ? 'Please do not send the form again' : 'Lütfen formu tekrar göndermeyin',
  );
  // It loads itself again, and links to the payment's page, which shows the outcome once it is known.
  expect(answer.text).toMatch(/<meta http-equiv="refresh" content="\d+">/);
  expect(answer.text).toContain(`id="check-status" href="/c/${paymentId}?lang=${lang}"`);
  expect(answer.text).not.toContain('<form');
}

/** Answers the open challenge on the acquirer's page; `back`: the browser then follows it to the return URL. */
async function completeChallenge(paymentId: string, who: ReturnType<typeof customer>, back = true) {
  const handover = await who.page(paymentId);
  expect(handover.text).toContain('Confirm with your bank');
  const challengeUrl = /id="continue-challenge" href="([^"]+)"/.exec(handover.text)?.[1] ?? '';
  expect(challengeUrl).toMatch(new RegExp(`^${t.sandboxAcquirer.url}/3ds/3ds_`));
  const answered = await fetch(challengeUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'code=123456',
  });
  expect(answered.status).toBe(303);
  if (back) expectRedirectToPage(await who.fetchManual(answered.headers.get('location') ?? ''), paymentId);
}

describe('simultaneous submissions of the card form', () => {
  it('send one card to the acquirer; the others are answered with the page, which says the payment is in progress', async () => {
    const who = customer();
    const charge = await createCharge();
    // The first card stays at the acquirer long enough for every other submission to arrive meanwhile.
    await control.addFault(latencyFault('authorize', 3000, { times: 1, match: { reference: charge.id } }));
    const posts = Array.from({ length: SIMULTANEOUS }, () =>
      who.postCard(charge.providerPaymentId, freshCardNumber()),
    );
    await until('an attempt is claimed', async () => (await chargeRow(charge.id)).card_attempts > 0);

    // Meanwhile the payment's page (where every submission is sent) says so, in both languages.
    expectInProgressPage(await who.page(charge.providerPaymentId, 'tr'), charge.providerPaymentId, 'tr');
    expectInProgressPage(await who.page(charge.providerPaymentId, 'en'), charge.providerPaymentId, 'en');
    const late = await who.postCard(charge.providerPaymentId, freshCardNumber());
    expectRedirectToPage(late, charge.providerPaymentId);

    for (const answer of await Promise.all(posts)) expectRedirectToPage(answer, charge.providerPaymentId);
    expect(await authorizations(charge.providerPaymentId)).toBe(1);
    expect(await chargeRow(charge.id)).toEqual({ card_attempts: 1, card_attempt_claimed_until: null });
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    const paid = await who.page(charge.providerPaymentId);
    expect(paid.text).toContain('Payment received');
    expect(paid.text).not.toContain('http-equiv="refresh"');
    const attempts = await db()
      .selectFrom('charge_card_attempts')
      .select(['number', 'outcome'])
      .where('charge_id', '=', charge.id)
      .execute();
    expect(attempts).toEqual([{ number: 1, outcome: 'succeeded' }]);
    const events = await eventsOf(charge.id);
    expect(events).toEqual([{ type: 'charge.succeeded' }]);
  });

  it('send one card without any delay injected', async () => {
    const who = customer();
    const charge = await createCharge();
    const answers = await Promise.all(
      Array.from({ length: SIMULTANEOUS }, () => who.postCard(charge.providerPaymentId, freshCardNumber())),
    );
    for (const answer of answers) expectRedirectToPage(answer, charge.providerPaymentId);
    expect(await authorizations(charge.providerPaymentId)).toBe(1);
    expect((await chargeRow(charge.id)).card_attempts).toBe(1);
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded' });
  });

  it('of a 3-D Secure card open one challenge, which then pays the charge', async () => {
    const who = customer();
    const charge = await createCharge();
    const answers = await Promise.all(
      Array.from({ length: SIMULTANEOUS }, () =>
        who.postCard(charge.providerPaymentId, TEST_CARDS.challenge.number),
      ),
    );
    for (const answer of answers) expectRedirectToPage(answer, charge.providerPaymentId);
    expect(await authorizations(charge.providerPaymentId)).toBe(1);
    // While the challenge is open, another card is not sent either.
    expectRedirectToPage(
      await who.postCard(charge.providerPaymentId, TEST_CARDS.visa.number),
      charge.providerPaymentId,
    );
    await completeChallenge(charge.providerPaymentId, who);
    expect((await who.page(charge.providerPaymentId)).text).toContain('Visa •••• 3220');
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    expect(await authorizations(charge.providerPaymentId)).toBe(1);
    expect((await chargeRow(charge.id)).card_attempts).toBe(1);
  });
});

describe('retries', () => {
  it('after a decline, the next card goes to the acquirer: one call per attempt, counted as before', async () => {
    const who = customer();
    const charge = await createCharge();
    expectRedirectToPage(
      await who.postCard(charge.providerPaymentId, TEST_CARDS.insufficientFunds.number),
      charge.providerPaymentId,
    );
    const declined = await who.page(charge.providerPaymentId);
    expect(declined.text).toContain(
      `Your card was declined: The card has insufficient funds. Attempts left: ${ATTEMPTS - 1}.`,
    );
    expect(declined.text).toContain('id="card-form"');
    expect(await chargeRow(charge.id)).toEqual({ card_attempts: 1, card_attempt_claimed_until: null });

    // A failed 3-D Secure challenge counts as a decline too.
    expectRedirectToPage(
      await who.postCard(charge.providerPaymentId, TEST_CARDS.challengeFails.number),
      charge.providerPaymentId,
    );
    await completeChallenge(charge.providerPaymentId, who);
    expect((await who.page(charge.providerPaymentId)).text).toContain(
      `The bank could not confirm the payment (3-D Secure). Attempts left: ${ATTEMPTS - 2}.`,
    );

    expectRedirectToPage(
      await who.postCard(charge.providerPaymentId, TEST_CARDS.visa.number),
      charge.providerPaymentId,
    );
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded' });
    expect(await authorizations(charge.providerPaymentId)).toBe(3);
    expect(await chargeRow(charge.id)).toEqual({ card_attempts: 3, card_attempt_claimed_until: null });
  });

  it('after the acquirer could not be reached, the customer may send the card again at once', async () => {
    const who = customer();
    const charge = await createCharge();
    await control.addFault(
      errorFault('authorize', 503, 'unavailable', { times: 1, match: { reference: charge.id } }),
    );
    const unavailable = await who.postCard(charge.providerPaymentId, TEST_CARDS.visa.number);
    expect(unavailable.status).toBe(503);
    expect(unavailable.text).toContain('The payment service is not reachable right now.');
    expect((await chargeRow(charge.id)).card_attempt_claimed_until).toBeNull();
    expectRedirectToPage(
      await who.postCard(charge.providerPaymentId, TEST_CARDS.visa.number),
      charge.providerPaymentId,
    );
    expect(await getCharge(charge.id)).toMatchObject({ status: 'succeeded' });
    expect(await authorizations(charge.providerPaymentId)).toBe(2);
  });
});

describe('a claim a crashed process left', () => {
  it('holds the charge until its lease runs out; then the payment is read back before another card', async () => {
    const who = customer();
    const lease = t.gateway.services.config.idempotencyLockMs;
    const { completion } = t.gateway.services;
    // Three processes died holding a claim: one before its card left, one after the acquirer approved it
    // (the notification lost), one after the acquirer opened a 3-D Secure challenge.
    const [unsent, approved, challenged] = await Promise.all([
      createCharge(),
      createCharge(),
      createCharge(),
    ]);
    await control.addFault({ operation: 'notification', action: 'drop', match: { reference: approved.id } });
    for (const charge of [unsent, approved, challenged]) {
      expect(await completion.takeCardAttempt(charge.id)).toBe(1);
    }
    expect((await control.authorize(approved.providerPaymentId, TEST_CARDS.visa.number)).status).toBe(200);
    expect((await control.authorize(challenged.providerPaymentId, TEST_CARDS.challenge.number)).status).toBe(
      200,
    );

    // Within the lease: in progress, and a card posted meanwhile goes nowhere.
    expectInProgressPage(await who.page(unsent.providerPaymentId, 'en'), unsent.providerPaymentId, 'en');
    expectRedirectToPage(
      await who.postCard(unsent.providerPaymentId, TEST_CARDS.visa.number),
      unsent.providerPaymentId,
    );
    expect(await authorizations(unsent.providerPaymentId)).toBe(0);
    expect((await getCharge(approved.id)).status).toBe('pending');

    t.clock.advance(lease + 1000);

    // The card that never left: the form again, the dead attempt still counted.
    const form = await who.page(unsent.providerPaymentId);
    expect(form.text).toContain('id="card-form"');
    expect((await chargeRow(unsent.id)).card_attempt_claimed_until).toBeNull();
    expectRedirectToPage(
      await who.postCard(unsent.providerPaymentId, TEST_CARDS.visa.number),
      unsent.providerPaymentId,
    );
    expect(await getCharge(unsent.id)).toMatchObject({ status: 'succeeded' });
    expect(await authorizations(unsent.providerPaymentId)).toBe(1);
    expect((await chargeRow(unsent.id)).card_attempts).toBe(2);

    // The approved card: the read-back pays the charge, and no card is sent again.
    const paid = await who.page(approved.providerPaymentId);
    expect(paid.text).toContain('Payment received');
    expectRedirectToPage(
      await who.postCard(approved.providerPaymentId, TEST_CARDS.visa.number),
      approved.providerPaymentId,
    );
    expect(await getCharge(approved.id)).toMatchObject({ status: 'succeeded', providerStatus: 'succeeded' });
    expect(await authorizations(approved.providerPaymentId)).toBe(1);

    // The open challenge: the customer is handed over to it, and it pays. (The dead process's return URL
    // was the shop's, so the customer comes back to the payment's page by its link.)
    await completeChallenge(challenged.providerPaymentId, who, false);
    expect((await who.page(challenged.providerPaymentId)).text).toContain('Payment received');
    expect(await getCharge(challenged.id)).toMatchObject({ status: 'succeeded' });
    expect(await authorizations(challenged.providerPaymentId)).toBe(1);
  });
});
