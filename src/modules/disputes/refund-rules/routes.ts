import { failures, routeKit } from '../../../http/api-routes.js';
import type { App } from '../../../http/server.js';
import { callerOf, keyActor, ownerOf } from '../../api-keys/context.js';
import { RuleKindParamsSchema, RuleListSchema, RuleUpdateSchema, RuleViewSchema } from './schemas.js';
import type { DisputeRefundRuleService } from './service.js';

const TAGS = ['Disputes'];
const FLAG = 'Needs the `disputes` feature of the organization (403 `forbidden` without it).';
const HOW =
  'A rule that is on refunds, through the same path as `POST /v1/charges/{id}/refunds`, each pre-dispute ' +
  'alert (`dispute_alert`: by its amount, before its `refundBy`) or early fraud warning (`fraud_warning`: ' +
  'what remains refundable of its charge, unless a dispute holds it) that arrives while it is on and ' +
  'whose amount is at most `maxAmount`; the refund is recorded as the alert’s or warning’s `refundId`, ' +
  'and the acquirer then resolves the alert (`dispute_alert.resolved`).';

/** `/v1/dispute-refund-rules` (issue 37 item 5, flag `disputes`). */
export async function disputeRefundRuleRoutes(
  app: App,
  options: { service: DisputeRefundRuleService },
): Promise<void> {
  const { service } = options;
  const kit = routeKit({ tags: TAGS, feature: 'disputes' });

  app.get(
    '/v1/dispute-refund-rules',
    kit.route(
      {
        operationId: 'listDisputeRefundRules',
        summary: 'List the auto-refund rules',
        description: `The environment’s two rules; one never set is off. ${HOW} Needs scope \`read\`. ${FLAG}`,
      },
      { response: { 200: RuleListSchema, ...failures('list') } },
    ),
    async (request) => service.list(ownerOf(request)),
  );

  app.put(
    '/v1/dispute-refund-rules/:kind',
    kit.route(
      {
        operationId: 'setDisputeRefundRule',
        summary: 'Set an auto-refund rule',
        description:
          'Replaces the rule of this kind. Switching it on covers what arrives from then on (the alerts ' +
          'and warnings already there are left to you); changing only `maxAmount` keeps its start. ' +
          `Audited. ${HOW} Needs scope \`write\`. ${FLAG}`,
      },
      {
        params: RuleKindParamsSchema,
        body: RuleUpdateSchema,
        response: { 200: RuleViewSchema, ...failures('list', 413, 415) },
      },
      'write',
    ),
    async (request) =>
      service.set(ownerOf(request), request.params.kind, request.body, {
        actor: keyActor(callerOf(request)),
        requestId: request.id,
        ip: request.ip,
      }),
  );
}
