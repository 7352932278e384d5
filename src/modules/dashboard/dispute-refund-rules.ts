import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../http/errors.js';
import type { App } from '../../http/server.js';
import type { DisputeRefundRuleKind, DisputeRefundRuleService } from '../disputes/refund-rules/service.js';
import { contextOf, localeOf, type SignedIn } from '../users/http.js';
import { formatAmount } from '../checkout/format.js';
import { DISPUTE_REFUND_RULE_MESSAGES, type DisputeRefundRuleMessages } from './dispute-refund-rule-i18n.js';
import { format } from './i18n.js';
import {
  Csrf,
  displayTime,
  guardedRoute,
  ownerOf,
  pageRoute,
  pageSchema,
  readerGuard,
  registerPages,
  SETTINGS_POST,
  type PageKit,
  type PageRequest,
} from './kit.js';
import { parseAmount } from './payment-views.js';

export interface DisputeRefundRulePagesOptions {
  kit: PageKit;
  rules: Pick<DisputeRefundRuleService, 'list' | 'set'>;
}

const PATH = '/dashboard/dispute-refund-rules';

const RuleFormSchema = Type.Object(
  {
    _csrf: Csrf,
    kind: Type.Union([Type.Literal('dispute_alert'), Type.Literal('fraud_warning')]),
    enabled: Type.Optional(Type.Literal('true')),
    maxAmount: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

const RulesRoute = pageSchema({});
const RuleSaveRoute = pageSchema({ body: RuleFormSchema });

/** Every role reads the rules (flag `disputes`); whoever may refund a charge changes them. */
const reader = readerGuard<DisputeRefundRulePagesOptions>(
  { permission: 'readPayments', feature: 'disputes' },
  (options, request, reply, current) => page(options, request, reply, current, 403),
);

/**
 * The auto-refund rules of pre-dispute alerts and early fraud warnings (issue 37 item 5): the same
 * rules as `/v1/dispute-refund-rules`, of the session's environment, audited by the disputes module.
 */
export async function disputeRefundRulePages(
  app: App,
  options: DisputeRefundRulePagesOptions,
): Promise<void> {
  registerPages(app, options, [
    guardedRoute('GET', PATH, RulesRoute, reader, (o, request, reply, current) =>
      page(o, request, reply, current, 200, { saved: request.query.notice === 'saved' }),
    ),
    pageRoute('POST', PATH, RuleSaveRoute, saveRule, SETTINGS_POST),
  ]);
}

const rm = (request: FastifyRequest): DisputeRefundRuleMessages =>
  DISPUTE_REFUND_RULE_MESSAGES[localeOf(request)];

async function page(
  { kit, rules }: DisputeRefundRulePagesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  current: SignedIn,
  status: number,
  extra: { saved?: boolean; error?: { kind: DisputeRefundRuleKind; typed: string } } = {},
) {
  const messages = rm(request);
  const locale = localeOf(request);
  const { data } = await rules.list(ownerOf(current));
  return kit.render(request, reply, 'dashboard-dispute-refund-rules', status, {
    title: () => messages.title,
    nav: true,
    csrf: current.session.csrfToken,
    rm: messages,
    canManage: kit.may(current, 'refundCharges'),
    refused: status === 403,
    saved: extra.saved ?? false,
    error: extra.error,
    rules: data.map((rule) => ({
      ...rule,
      summary: !rule.enabled
        ? messages.off
        : `${messages.on}, ${
            rule.maxAmount === null
              ? messages.anyAmount
              : format(messages.upTo, { amount: formatAmount(rule.maxAmount, 'TRY', locale) })
          }, ${format(messages.since, { time: displayTime(rule.enabledAt) })}`,
      // What the form shows: the limit in TRY as typed ("2000,50"), or what was typed and refused.
      typed:
        extra.error?.kind === rule.kind
          ? extra.error.typed
          : rule.maxAmount === null
            ? ''
            : majorUnits(rule.maxAmount),
    })),
  });
}

/** Minor units as a form field shows them: "2000", or "2000.50" with the cents. */
function majorUnits(minor: string): string {
  const value = BigInt(minor);
  const cents = value % 100n;
  return cents === 0n ? (value / 100n).toString() : `${value / 100n}.${cents.toString().padStart(2, '0')}`;
}

async function saveRule(
  options: DisputeRefundRulePagesOptions,
  request: PageRequest<typeof RuleSaveRoute>,
  reply: FastifyReply,
) {
  const { kit, rules } = options;
  const { kind } = request.body;
  const typed = (request.body.maxAmount ?? '').trim();
  return kit.command(request, reply, {
    permission: 'refundCharges',
    refused: (current) => page(options, request, reply, current, 403),
    run: async (current) => {
      if (!kit.hasFeature(current, 'disputes')) throw new ApiError('not_found', 'No such page.');
      const minor = typed === '' ? null : parseAmount(typed);
      if (minor === undefined || minor === 0n)
        return { reply: await page(options, request, reply, current, 400, { error: { kind, typed } }) };
      await rules.set(
        ownerOf(current),
        kind,
        { enabled: request.body.enabled === 'true', maxAmount: minor === null ? null : Number(minor) },
        { actor: `user:${current.account.user.id}`, ...contextOf(request) },
      );
      return { path: PATH, notice: 'saved' };
    },
  });
}
