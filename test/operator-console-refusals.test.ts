/**
 * The operator console's forms answer a refusal with a page that says why, in the console's layout, never
 * with the operator API's JSON envelope: acknowledging an alert that does not exist, canceling a wallet
 * change without a reason or one that does not exist, and a payout that does not exist (its page and its
 * commands). The API under `/operator/v1/…` keeps answering JSON for the same refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { createStaffUser, loginStaff, type StaffSession } from './helpers/operator.js';

let t: TestGateway;
let admin: StaffSession;

beforeAll(async () => {
  t = await startTestGateway();
  admin = await loginStaff(t, await createStaffUser(t, 'admin'));
});
afterAll(async () => t?.close());

/** The console page's alert line (`p.form-error`), as text. */
function refusalIn(html: string): string | undefined {
  const match = /<p class="form-error" role="alert">([\s\S]*?)<\/p>/.exec(html);
  return match?.[1]?.replace(/&#39;/g, "'").trim();
}

function expectPage(res: { status: number; text: string; headers: Headers }, status: number): string {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.text).toContain('<!doctype html>');
  expect(res.text).not.toContain('"error":{');
  return res.text;
}

describe('a refused console form', () => {
  it('acknowledging an alert that does not exist: the alerts page with the reason, 404', async () => {
    const html = expectPage(await admin.post('/alerts/alert_nope/acknowledge', {}), 404);
    expect(refusalIn(html)).toBe('No alert alert_nope.');
    expect(html).toContain('<h1');
    // The API says the same in its envelope.
    const api = await admin.post('/operator/v1/alerts/alert_nope/acknowledge', {});
    expect([api.status, api.body.error.code]).toEqual([404, 'not_found']);
  });

  it('canceling a wallet change without a reason, or one that does not exist: the changes page, 400 or 404', async () => {
    const blank = expectPage(await admin.post('/wallet-changes/wch_nope/cancel', { reason: '   ' }), 400);
    expect(refusalIn(blank)).toBe('The request is invalid. reason: must not be blank');
    const unknown = expectPage(
      await admin.post('/wallet-changes/wch_nope/cancel', { reason: 'the merchant asked' }),
      404,
    );
    expect(refusalIn(unknown)).toBe('No such wallet change.');
  });

  it('a payout that does not exist: its page and its commands say so, 404', async () => {
    const page = expectPage(await admin.get('/payouts/po_nope'), 404);
    expect(page).toContain('No such payout.');
    expect(page).toContain('href="/payouts"');
    for (const [path, body] of [
      ['/payouts/po_nope/cancel', { reason: 'duplicate' }],
      ['/payouts/po_nope/not-sent', { reason: 'never broadcast' }],
      ['/payouts/po_nope/transaction', { txHash: 'a'.repeat(64) }],
    ] as const) {
      const refused = expectPage(await admin.post(path, body), 404);
      expect(refused, path).toContain('No such payout.');
    }
  });
});
