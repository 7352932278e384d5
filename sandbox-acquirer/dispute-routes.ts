import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dispatch, NO_TARGET, type CallTarget, type OperationResult } from './dispatch.js';
import {
  parseAccept,
  parseEscalate,
  parseEvidence,
  parsePreArbitration,
  parseRaise,
} from './dispute-validation.js';
import type { DisputeService } from './disputes.js';
import type { ApiOperation } from './faults.js';
import type { StoredDispute } from './model.js';
import { paymentTarget, type RouteDeps } from './routes.js';

export interface DisputeRouteDeps extends RouteDeps {
  disputes: DisputeService;
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

/**
 * The `/v1` dispute API of the gateway (registered in the scope that authenticates): it reads a dispute
 * back before it moves money, answers with evidence, or accepts.
 */
export function registerDisputeRoutes(app: FastifyInstance, deps: DisputeRouteDeps): void {
  const { disputes } = deps;

  app.get('/v1/disputes/:id', (request: IdRequest, reply) =>
    disputeOperation(deps, request, reply, 'get_dispute', () =>
      disputeResult(deps, disputes.get(request.params.id)),
    ),
  );

  app.get('/v1/payments/:id/disputes', (request: IdRequest, reply) =>
    dispatch(deps, request, reply, {
      operation: 'list_disputes',
      target: paymentTarget(deps, request.params.id),
      idempotencyKey: null,
      run: () => {
        const found = disputes.ofPayment(request.params.id);
        return { status: 200, body: { data: found.map((dispute) => disputes.view(dispute)) } };
      },
    }),
  );

  app.post('/v1/disputes/:id/evidence', (request: IdRequest, reply) =>
    disputeOperation(deps, request, reply, 'submit_evidence', () => {
      const text = parseEvidence(request.body);
      return disputeResult(deps, disputes.submitEvidence(request.params.id, text));
    }),
  );

  app.post('/v1/disputes/:id/accept', (request: IdRequest, reply) =>
    disputeOperation(deps, request, reply, 'accept_dispute', () => {
      parseAccept(request.body);
      return disputeResult(deps, disputes.accept(request.params.id));
    }),
  );
}

/** `/_control/disputes…`: the issuer's side, for tests and developers (not faulted, not in the call log). */
export function registerDisputeControlRoutes(app: FastifyInstance, deps: DisputeRouteDeps): void {
  const { disputes } = deps;

  app.post('/_control/disputes', async (request, reply) => {
    const dispute = disputes.raise(parseRaise(request.body));
    return reply.code(201).send(disputes.view(dispute));
  });

  app.post('/_control/disputes/:id/pre-arbitration', async (request: IdRequest) => {
    const dueBy = parsePreArbitration(request.body);
    return disputes.view(disputes.preArbitration(request.params.id, dueBy));
  });

  app.post('/_control/disputes/:id/escalate', async (request: IdRequest) => {
    parseEscalate(request.body);
    return disputes.view(disputes.escalate(request.params.id));
  });
}

function disputeOperation(
  deps: DisputeRouteDeps,
  request: IdRequest,
  reply: FastifyReply,
  operation: ApiOperation,
  run: () => OperationResult,
): Promise<FastifyReply> {
  return dispatch(deps, request, reply, {
    operation,
    target: disputeTarget(deps, request.params.id),
    idempotencyKey: null,
    run,
  });
}

/** The payment a dispute call is about: fault rules match it, errors answer its status. */
function disputeTarget(deps: DisputeRouteDeps, disputeId: string): CallTarget {
  const dispute = deps.store.dispute(disputeId);
  return dispute ? paymentTarget(deps, dispute.paymentId) : NO_TARGET;
}

function disputeResult(deps: DisputeRouteDeps, dispute: StoredDispute): OperationResult {
  return {
    status: 200,
    body: deps.disputes.view(dispute),
    paymentId: dispute.paymentId,
    reference: dispute.reference,
  };
}
