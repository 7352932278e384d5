import { Type } from 'typebox';
import type { App } from '../../http/server.js';
import { consoleRoute, type ConsoleKit } from './console-kit.js';
import { DISPUTE_STATUSES, type OperatorDisputes } from './disputes-api.js';
import { ENVIRONMENTS } from './schemas.js';

const QueueQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Enum([...DISPUTE_STATUSES]), Type.Literal('')])),
    environment: Type.Optional(Type.Union([Type.Enum([...ENVIRONMENTS]), Type.Literal('')])),
    organizationId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Hours from `now` to `due`, rounded down; negative once past. */
const hoursLeft = (due: string | null, now: Date): number | null =>
  due === null ? null : Math.floor((new Date(due).getTime() - now.getTime()) / 3_600_000);

/** The disputes queue across merchants at `/disputes`, nearest deadline first. */
export async function operatorDisputeConsole(
  app: App,
  deps: { kit: ConsoleKit; disputes: OperatorDisputes },
): Promise<void> {
  app.get('/disputes', consoleRoute('read', { querystring: QueueQuery }), async (request, reply) => {
    const status = request.query.status || undefined;
    const environment = request.query.environment || undefined;
    const organizationId = request.query.organizationId || undefined;
    const disputes = await deps.disputes.queue({
      limit: 200,
      ...(status ? { status } : {}),
      ...(environment ? { environment } : {}),
      ...(organizationId ? { organizationId } : {}),
    });
    const now = new Date();
    return deps.kit.show(request, reply, 'operator/disputes', {
      title: 'Disputes',
      disputes: disputes.map((dispute) => ({ ...dispute, hoursLeft: hoursLeft(dispute.evidenceDueBy, now) })),
      status,
      environment,
      organizationId,
      statuses: DISPUTE_STATUSES,
      environments: ENVIRONMENTS,
    });
  });
}
