import { Type } from 'typebox';
import { errorResponses } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { JobKit } from '../../worker/kit.js';
import { JobRunViewSchema } from '../../worker/run-log.js';
import { apiRoute, ListOf, PageOf } from './api-kit.js';

const errors = errorResponses(400, 401, 403, 429);

const ParkedRowSchema = Type.Object({
  job: Type.String(),
  id: Type.String({ description: 'The parked row: a charge, refund or e-mail id.' }),
  attempts: Type.Integer({ minimum: 0 }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  parkedAt: Type.String({ format: 'date-time' }),
});

const RunsQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,18}$', description: 'The `nextCursor` of the previous page.' }),
    ),
    job: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);
/**
 * Background jobs for the operator as JSON (docs/decisions/0021-job-kit.md): the run log of every job,
 * and the rows a job parked after its last attempt.
 */
export async function operatorJobApi(app: App, deps: { jobs: JobKit }): Promise<void> {
  const { jobs } = deps;

  app.get(
    '/operator/v1/jobs/runs',
    apiRoute('read', PageOf(JobRunViewSchema), { querystring: RunsQuerySchema }, { errors }),
    async (request) => jobs.runs.list(request.query),
  );

  app.get(
    '/operator/v1/jobs/parked',
    apiRoute(
      'read',
      ListOf(ParkedRowSchema),
      {
        querystring: Type.Object(
          { limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }) },
          { additionalProperties: false },
        ),
      },
      { errors },
    ),
    async (request) => ({ data: await jobs.parked(request.query.limit) }),
  );
}
