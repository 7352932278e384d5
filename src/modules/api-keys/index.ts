export { callerOf, holdsScope, type ApiKeyAuth } from './context.js';
export { createApiKeyService, type ApiKeyService } from './service.js';
export { issueApiKey, type IssuedApiKey } from './issue.js';
export { apiKeyRetentionJob } from './retention.js';
export { toApiKeyResponse, toRequestResponse } from './routes.js';
export { ApiKeyRequestListSchema, ApiKeySchema } from './schemas.js';
export { type ApiKeysModuleOptions, API_KEY_HEADER, apiKeysModule } from './plugin.js';
