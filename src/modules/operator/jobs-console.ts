import type { App } from '../../http/server.js';
import type { JobKit } from '../../worker/kit.js';
import type { ConsoleKit } from './console-kit.js';

/** Background jobs for the operator as a console page at `/jobs`: the run log and the parked rows. */
export async function operatorJobConsole(app: App, deps: { kit: ConsoleKit; jobs: JobKit }): Promise<void> {
  const { kit, jobs } = deps;
  app.get('/jobs', { config: { operator: 'read' } }, async (request, reply) => {
    const query = request.query as { cursor?: string; job?: string };
    const cursor = query.cursor !== undefined && /^\d{1,18}$/.test(query.cursor) ? query.cursor : undefined;
    const job = query.job !== undefined && /^[a-z0-9-]{1,100}$/.test(query.job) ? query.job : undefined;
    const runs = await jobs.runs.list({ limit: 50, cursor, job });
    return kit.page(request, reply, 'operator/jobs', {
      title: 'Jobs',
      job,
      runs: runs.data,
      nextCursor: runs.nextCursor,
      parked: await jobs.parked(50),
    });
  });
}
