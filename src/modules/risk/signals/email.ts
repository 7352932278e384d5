import { domainToASCII } from 'node:url';
import mailchecker from 'mailchecker';

export interface EmailSignals {
  /** Trimmed, in lower case, the domain in its ASCII (punycode) form; null when absent or not an address. */
  email: string | null;
  emailDomain: string | null;
  /** Whether the domain, or a domain it is under, is on mailchecker's list of disposable providers. */
  disposableEmail: boolean;
}

const NONE: EmailSignals = { email: null, emailDomain: null, disposableEmail: false };
const LOCAL_PART = /^[^\s@\p{Cc}]{1,64}$/u;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function emailSignals(raw: string | null | undefined): EmailSignals {
  const text = raw?.trim().toLowerCase() ?? '';
  const at = text.lastIndexOf('@');
  if (at <= 0) return NONE;
  const local = text.slice(0, at);
  const domain = domainToASCII(text.slice(at + 1).replace(/\.$/, ''));
  const labels = domain.split('.');
  if (
    !LOCAL_PART.test(local) ||
    labels.length < 2 ||
    domain.length > 253 ||
    !labels.every((l) => LABEL.test(l))
  ) {
    return NONE;
  }
  const email = `${local}@${domain}`;
  if (email.length > 254) return NONE;
  return { email, emailDomain: domain, disposableEmail: isDisposable(labels) };
}

/** `mail.mailinator.com` is as disposable as `mailinator.com`. */
function isDisposable(labels: string[]): boolean {
  const listed = mailchecker.blacklist();
  for (let i = 0; i < labels.length - 1; i += 1) {
    if (listed.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}
