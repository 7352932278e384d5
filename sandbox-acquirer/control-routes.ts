import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from './errors.js';
import { parseCallsQuery, parseFaultRule, type CallLog, type FaultTable } from './faults.js';
import { notificationView, type Notifier } from './notifier.js';
import type { AcquirerStore } from './store.js';

export interface ControlDeps {
  faults: FaultTable;
  calls: CallLog;
  notifier: Notifier;
  store: AcquirerStore;
}

/** The `/_control` endpoints of the sandbox (registered in a scope that authenticates). */
export function registerControlRoutes(app: FastifyInstance, deps: ControlDeps): void {
  app.post('/_control/faults', async (request, reply) => {
    const rule = deps.faults.add(parseFaultRule(request.body));
    return reply.code(201).send({ id: rule.id });
  });

  app.get('/_control/faults', async () => ({ data: deps.faults.list() }));

  app.delete('/_control/faults', async () => ({ deleted: deps.faults.clear() }));

  app.delete('/_control/faults/:id', async (request: FastifyRequest<{ Params: { id: string } }>) => {
    deps.faults.remove(request.params.id);
    return { deleted: 1 };
  });

  app.get('/_control/calls', async (request) => ({ data: deps.calls.list(parseCallsQuery(request.query)) }));

  app.delete('/_control/calls', async () => ({ deleted: deps.calls.clear() }));

  app.get('/_control/notifications', async (request) => {
    const paymentId = parsePaymentIdQuery(request.query);
    const records = deps.store
      .allNotifications()
      .filter((record) => paymentId === null || record.paymentId === paymentId);
    return { data: records.map(notificationView) };
  });

  app.post('/_control/notifications/retry', async () => {
    const attempted = await deps.notifier.retryPending();
    return { data: attempted.map(notificationView) };
  });
}

function parsePaymentIdQuery(query: unknown): string | null {
  const fields = (query ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (name !== 'paymentId') throw invalidRequest('The only query parameter is paymentId.');
  }
  if (fields.paymentId === undefined) return null;
  if (typeof fields.paymentId !== 'string') throw invalidRequest('Give one paymentId query parameter.');
  return fields.paymentId;
}
