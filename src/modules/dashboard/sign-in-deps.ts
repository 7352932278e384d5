import type { accountAddressLimit, loginFloodGuard } from '../../http/rate-limit.js';
import type { UserService } from '../users/service.js';
import type { PageKit } from './kit.js';

/** What the anonymous pages use: the kit, the users service, and the limits of signing in. */
export interface SignInDeps {
  kit: PageKit;
  users: UserService;
  loginLimit: ReturnType<typeof accountAddressLimit>;
  loginFlood: ReturnType<typeof loginFloodGuard>;
  secondFactorLimit: ReturnType<typeof accountAddressLimit>;
}
