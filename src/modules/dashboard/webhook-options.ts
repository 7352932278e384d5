import type { UserService } from '../users/service.js';
import type { WebhookEndpointService } from '../webhooks/service.js';
import type { PageKit } from './kit.js';

export interface DashboardWebhookPagesOptions {
  kit: PageKit;
  users: UserService;
  webhooks: WebhookEndpointService;
}
