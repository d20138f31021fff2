import type { Area } from '../../area.js';
import { authRoutes } from './routes.js';
import { AuthService } from './service.js';

/** Sign-in: challenges, message signatures, sessions; a job purges what has expired. */
export const authArea: Area = {
  name: 'auth',
  routes: authRoutes,
  jobs: (ctx) => {
    const auth = new AuthService(ctx);
    return [{ name: 'auth-purge', intervalMs: 60_000, run: () => auth.purgeExpired() }];
  },
};
