import { createHash } from 'node:crypto';
import { escapeHtml } from '../src/shared/html.js';
import type { Challenge, StoredPayment } from './model.js';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}' +
  'h1{font-size:1.3rem}dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.3rem 1rem}dt{color:#555}' +
  'dd{margin:0;overflow-wrap:anywhere}' +
  'label{display:block;margin:1.2rem 0 .3rem}input{font-size:1.2rem;padding:.4rem;width:10rem;letter-spacing:.2rem}' +
  'button{display:block;margin-top:1rem;font-size:1rem;padding:.5rem 1.2rem}.hint{color:#555;font-size:.9rem}';

/** The page's one inline style is allowed by its hash: no 'unsafe-inline', no script at all. */
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * The Content-Security-Policy of a challenge page: nothing but its own style, and a form that may only
 * post back to the acquirer (which then redirects to the merchant's return URL, hence its origin).
 */
export function challengePageCsp(returnUrl: string): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${new URL(returnUrl).origin}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** "12550" minor units → "125.50". */
export function formatMinorUnits(amount: string): string {
  const padded = amount.padStart(3, '0');
  return `${padded.slice(0, -2)}.${padded.slice(-2)}`;
}

/** The issuer's page of a challenge. Everything shown is escaped; the form posts back to this URL. */
export function renderChallengePage(challenge: Challenge, payment: StoredPayment): string {
  const rows: [string, string][] = [
    ['Amount', `${formatMinorUnits(payment.amount)} ${payment.currency}`],
    // The gateway sends its charge id as the payment's reference: the id its merchant sees for this charge.
    ['Charge ID', payment.reference],
    ['Card', `${challenge.card.brand} •••• ${challenge.card.last4}`],
  ];
  if (payment.description !== null) rows.splice(1, 0, ['Description', payment.description]);
  const details = rows
    .map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>3-D Secure verification</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Sandbox issuer: confirm this payment</h1>
<dl>${details}</dl>
<form method="post">
<label for="code">One-time code sent to your phone</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="32" required autofocus>
<p class="hint">Sandbox: the code is 123456.</p>
<button type="submit">Confirm</button>
</form>
</main>
</body>
</html>
`;
}

/** The return URL with `payment=<id>` appended to its query (kept as it is otherwise). */
export function returnLocation(returnUrl: string, paymentId: string): string {
  const url = new URL(returnUrl);
  const param = `payment=${encodeURIComponent(paymentId)}`;
  url.search = url.search.length > 1 ? `${url.search}&${param}` : `?${param}`;
  return url.href;
}
