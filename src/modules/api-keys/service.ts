import type { Kdb } from '../../db/database.js';
import type { ApiKeyScope, Environment } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { generateApiKey } from './key-format.js';

export interface IssuedApiKey {
  id: string;
  /** The whole key, returned once and never stored. */
  secret: string;
  displayPrefix: string;
  environment: Environment;
  scopes: ApiKeyScope[];
  allowedIps: string[];
  expiresAt: Date | null;
  createdAt: Date;
}

export interface IssueKeyInput {
  organizationId: string;
  environment: Environment;
  scopes: ApiKeyScope[];
  allowedIps?: string[];
  expiresAt?: Date | null;
  name?: string | null;
  /** Audit actor: `staff:…`, `user:…`, `key:…`, `system`, `cli`. */
  createdBy: string;
}

/** Creates a key in the caller's transaction. Only its SHA-256 and display prefix are stored. */
export async function issueApiKey(db: Kdb, clock: Clock, input: IssueKeyInput): Promise<IssuedApiKey> {
  const now = clock.now();
  for (;;) {
    const generated = generateApiKey(input.environment);
    const inserted = await db
      .insertInto('api_keys')
      .values({
        id: newId('key', now),
        organization_id: input.organizationId,
        environment: input.environment,
        display_prefix: generated.displayPrefix,
        secret_hash: generated.secretHash,
        name: input.name ?? null,
        scopes: input.scopes,
        allowed_ips: input.allowedIps ?? [],
        expires_at: input.expiresAt ?? null,
        created_by: input.createdBy,
        created_at: now,
      })
      // A display prefix is never re-issued: on the (rare) clash, draw another key.
      .onConflict((oc) => oc.column('display_prefix').doNothing())
      .returning(['id', 'created_at'])
      .executeTakeFirst();
    if (!inserted) continue;
    return {
      id: inserted.id,
      secret: generated.secret,
      displayPrefix: generated.displayPrefix,
      environment: input.environment,
      scopes: input.scopes,
      allowedIps: input.allowedIps ?? [],
      expiresAt: input.expiresAt ?? null,
      createdAt: inserted.created_at,
    };
  }
}
