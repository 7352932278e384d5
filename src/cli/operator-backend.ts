import { randomBytes } from 'node:crypto';
import { passwordProblem } from '../shared/passwords.js';

/** One operator operation, whichever way it reaches the gateway. */
export interface Backend {
  call(command: string, input: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** A command line the CLI cannot run: exit 1 with the reason and the usage text. */
export class UsageError extends Error {}

/**
 * A generated staff password. It must pass the same rules as a chosen one: a random one can contain the
 * e-mail's local part (likely when it is one or two letters), which `create-staff` would then refuse.
 */
export function generatedPassword(email: string): string {
  let password = randomBytes(15).toString('base64url');
  // Bounded: for an address no password can pass (an empty local part), the service reports why.
  for (let attempt = 0; attempt < 100 && passwordProblem(password, email) !== undefined; attempt++) {
    password = randomBytes(15).toString('base64url');
  }
  return password;
}
