import type { Environment } from '../db/schema.js';

/**
 * Whose a row is: an organization in one environment. Every merchant table is keyed by both, and every
 * read and write of a module takes its owner (a row of another organization or environment is not
 * found). `keyId`: the API key making the request, recorded on what it creates; absent where no key acts
 * (the dashboard, the worker, an operator).
 */
export interface Owner {
  organizationId: string;
  environment: Environment;
  keyId?: string;
}
