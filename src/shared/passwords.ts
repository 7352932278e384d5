import { hash, verify } from '@node-rs/argon2';

/** argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's recommended floor). */
export async function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: 2 });
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A hash of a random password, verified against when the account does not exist: equal timing. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  return decoy;
}

export const PASSWORD_RULES = { minLength: 12, maxLength: 256 } as const;

/** Length is the rule that matters (NIST 800-63B); also refuses the obvious. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < PASSWORD_RULES.minLength)
    return `must be at least ${PASSWORD_RULES.minLength} characters`;
  if (password.length > PASSWORD_RULES.maxLength)
    return `must be at most ${PASSWORD_RULES.maxLength} characters`;
  if (/^(.)\1*$/.test(password)) return 'must not repeat one character';
  if (email && password.toLowerCase().includes(email.toLowerCase().split('@')[0] ?? '\u0000')) {
    return 'must not contain your e-mail name';
  }
  return undefined;
}
