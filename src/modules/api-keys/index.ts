import type { Redis } from 'ioredis';
import type { Environment } from '../../db/schema.js';
import type { App } from '../../http/server.js';
import type { Services } from '../../services.js';

export interface ApiKeysModuleOptions {
  services: Services;
  environment: Environment;
  redis: Redis | undefined;
}

/** API-key authentication of the listener's /v1 routes, per-key rate limits and key management (issue 4). */
export async function apiKeysModule(_app: App, _options: ApiKeysModuleOptions): Promise<void> {
  // Filled in by the API keys work in progress.
}
