import { Type, type Static, type TSchema } from 'typebox';
import {
  IdParamsSchema,
  ListQueryWith,
  NEXT_CURSOR,
  NullableTimestamp,
  PageSchema,
  Timestamp,
} from '../../http/schemas.js';

/** The merchant's API of disputes, early fraud warnings and pre-dispute alerts (issue 37 item 4). */

/** What one evidence text field may hold; the acquirer takes at most this much text per stage too. */
export const EVIDENCE_FIELD_LIMIT = 20_000;
/** At most this many files per stage's evidence. */
export const EVIDENCE_FILES_LIMIT = 20;

/** The evidence text fields, with the label each has in the text sent to the acquirer. */
export const EVIDENCE_FIELDS = {
  productDescription: 'Product or service description',
  customerCommunication: 'Customer communication',
  refundPolicy: 'Refund policy',
  cancellationPolicy: 'Cancellation policy',
  accessActivityLog: 'Access or activity log',
  deliveryProof: 'Delivery or access proof',
  uncategorizedText: 'Other',
} as const;
export type EvidenceField = keyof typeof EVIDENCE_FIELDS;
export const EVIDENCE_FIELD_NAMES = Object.keys(EVIDENCE_FIELDS) as EvidenceField[];

const FIELD_DESCRIPTIONS: Record<EvidenceField, string> = {
  productDescription: 'What was sold: the product or service, its price and terms.',
  customerCommunication: 'Messages exchanged with the customer (e-mails, chat), quoted as text.',
  refundPolicy: 'The refund policy the customer agreed to, and how it was shown.',
  cancellationPolicy: 'The cancellation policy the customer agreed to, and how it was shown.',
  accessActivityLog:
    'A log of the customer using what was bought: logins, sessions, streams (an IPTV access log), with ' +
    'times and IP addresses.',
  deliveryProof: 'Proof of delivery or access: a carrier tracking number, a signature, an activation.',
  uncategorizedText: 'Anything else that supports the case.',
};

const FILE_ID = Type.String({ pattern: '^file_[0-9a-z]{1,60}$', description: 'A file id (`file_…`).' });

const evidenceField = (name: EvidenceField, nullable: boolean) => {
  const text = Type.String({
    minLength: 1,
    maxLength: EVIDENCE_FIELD_LIMIT,
    description: `${FIELD_DESCRIPTIONS[name]} At most ${EVIDENCE_FIELD_LIMIT} characters.`,
  });
  return Type.Optional(nullable ? Type.Union([text, Type.Null()]) : text);
};

const evidenceMembers = (nullable: boolean) => ({
  productDescription: evidenceField('productDescription', nullable),
  customerCommunication: evidenceField('customerCommunication', nullable),
  refundPolicy: evidenceField('refundPolicy', nullable),
  cancellationPolicy: evidenceField('cancellationPolicy', nullable),
  accessActivityLog: evidenceField('accessActivityLog', nullable),
  deliveryProof: evidenceField('deliveryProof', nullable),
  uncategorizedText: evidenceField('uncategorizedText', nullable),
});

const FilesList = Type.Array(FILE_ID, {
  maxItems: EVIDENCE_FILES_LIMIT,
  uniqueItems: true,
  description:
    `Evidence files uploaded with \`POST /v1/files\` (purpose \`dispute_evidence\`), at most ` +
    `${EVIDENCE_FILES_LIMIT}; replaces the staged list whole.`,
});

export const EvidenceUpdateSchema = Type.Object(
  {
    ...evidenceMembers(true),
    files: Type.Optional(Type.Union([FilesList, Type.Null()])),
    submit: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          '`false` (the default): merge into the staged evidence and keep it. `true`: merge, then send the ' +
          'staged evidence to the acquirer as this stage’s answer (once per stage).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Only the members sent change; `null` clears one.',
  },
);
export type EvidenceUpdate = Static<typeof EvidenceUpdateSchema>;

const EvidenceViewSchema = Type.Object(
  { ...evidenceMembers(false), files: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false, description: 'The evidence staged for the current stage.' },
);

const Stage = Type.Union(
  [Type.Literal('inquiry'), Type.Literal('chargeback'), Type.Literal('pre_arbitration')],
  { description: '`inquiry` (a retrieval request), `chargeback`, then `pre_arbitration`.' },
);
const DisputeStatusSchema = Type.Union(
  [
    Type.Literal('warning_needs_response'),
    Type.Literal('warning_under_review'),
    Type.Literal('warning_closed'),
    Type.Literal('needs_response'),
    Type.Literal('under_review'),
    Type.Literal('won'),
    Type.Literal('lost'),
  ],
  { description: 'Inquiries are `warning_*`; accepting a dispute closes it `lost`.' },
);
const Reason = Type.Union([
  Type.Literal('fraudulent'),
  Type.Literal('unrecognized'),
  Type.Literal('product_not_received'),
  Type.Literal('product_unacceptable'),
  Type.Literal('subscription_canceled'),
  Type.Literal('credit_not_processed'),
  Type.Literal('duplicate'),
  Type.Literal('general'),
]);
const Network = Type.Union(
  [Type.Literal('visa'), Type.Literal('mastercard'), Type.Literal('troy'), Type.Literal('unknown')],
  { description: 'The card scheme.' },
);
const Money = (description: string) =>
  Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: `${description} TRY minor units.` });
const NullableText = Type.Union([Type.String(), Type.Null()]);

const ChargeSummary = Type.Object(
  {
    id: Type.String({ description: '`ch_…`' }),
    merchantReference: Type.String(),
    metadata: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  { additionalProperties: false, description: 'The disputed charge: enough to find the order.' },
);

const disputeMembers = {
  id: Type.String({ description: '`dp_…`' }),
  object: Type.Literal('dispute'),
  chargeId: Type.String(),
  charge: ChargeSummary,
  amount: Money('The disputed amount (all or part of the charge).'),
  currency: Type.Literal('TRY'),
  reason: Reason,
  reasonCode: Type.String({ description: 'The scheme’s reason code (Visa 10.4, Mastercard 4837, …).' }),
  network: Network,
  status: DisputeStatusSchema,
  stage: Stage,
  isInquiry: Type.Boolean(),
  evidenceDueBy: NullableTimestamp('The deadline of the current stage’s answer.'),
  evidence: EvidenceViewSchema,
  evidenceSubmittedAt: NullableTimestamp('When the current stage’s evidence was sent.'),
  submissions: Type.Array(
    Type.Object(
      { stage: Stage, evidence: EvidenceViewSchema, submittedAt: Timestamp('When it was sent.') },
      { additionalProperties: false },
    ),
    { description: 'The evidence sent for each stage, oldest first.' },
  ),
  amountWithdrawn: Money('What the acquirer withdrew for it so far.'),
  amountReinstated: Money('What it gave back so far.'),
  creditProcessed: Type.Boolean({ description: 'Raised over an amount that was already refunded.' }),
  alertId: NullableText,
  closedBy: Type.Union([
    Type.Literal('acceptance'),
    Type.Literal('decision'),
    Type.Literal('deadline'),
    Type.Literal('refund'),
    Type.Null(),
  ]),
  closedAt: NullableTimestamp('When the current stage closed.'),
  escalatedAt: NullableTimestamp('When an inquiry became a chargeback.'),
  livemode: Type.Boolean(),
  createdAt: Timestamp('When the gateway learnt of it.'),
  updatedAt: Timestamp('When it last changed.'),
};

export const DisputeViewSchema = Type.Object(disputeMembers, { additionalProperties: false });

const LedgerEntrySchema = Type.Object(
  {
    id: Type.String(),
    kind: Type.Union([
      Type.Literal('dispute_funds_withdrawn'),
      Type.Literal('dispute_funds_reinstated'),
      Type.Literal('dispute_fee'),
      Type.Literal('dispute_fee_returned'),
    ]),
    sourceId: Type.String({
      description: 'The acquirer’s funds movement, or `<dispute id>:<stage>` for a fee.',
    }),
    currency: Type.Literal('TRY'),
    createdAt: Timestamp('When it was booked.'),
    postings: Type.Array(
      Type.Object(
        {
          account: Type.String(),
          amount: Type.String({ description: 'Minor units; debits positive, credits negative.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const DisputeDetailSchema = Type.Object(
  {
    ...disputeMembers,
    ledgerEntries: Type.Array(LedgerEntrySchema, {
      description: 'The journal entries the dispute caused, oldest first.',
    }),
  },
  { additionalProperties: false },
);
export type DisputeDetail = Static<typeof DisputeDetailSchema>;

const page = <T extends TSchema>(item: T) => PageSchema(item, NEXT_CURSOR, { additionalProperties: false });

export const DisputeListSchema = page(DisputeViewSchema);

const chargeFilter = Type.Optional(
  Type.String({ minLength: 1, maxLength: 64, description: 'Only those of this charge (`ch_…`).' }),
);

export const DisputeListQuerySchema = ListQueryWith({
  status: Type.Optional(DisputeStatusSchema),
  chargeId: chargeFilter,
});
export type DisputeListQuery = Static<typeof DisputeListQuerySchema>;

export const DisputeIdParamsSchema = IdParamsSchema('The dispute id (`dp_…`).');

export const FraudWarningViewSchema = Type.Object(
  {
    id: Type.String({ description: '`efw_…`' }),
    object: Type.Literal('fraud_warning'),
    chargeId: Type.String(),
    charge: ChargeSummary,
    reason: Type.String(),
    reasonCode: Type.String(),
    network: Network,
    refundId: Type.Union([Type.String(), Type.Null()], {
      description: 'The refund made because of it, by an auto-refund rule.',
    }),
    livemode: Type.Boolean(),
    createdAt: Timestamp('When the gateway learnt of it.'),
  },
  { additionalProperties: false },
);
export const FraudWarningListSchema = page(FraudWarningViewSchema);
export const FraudWarningListQuerySchema = ListQueryWith({ chargeId: chargeFilter });
export type FraudWarningListQuery = Static<typeof FraudWarningListQuerySchema>;
export const FraudWarningIdParamsSchema = IdParamsSchema('The early fraud warning id (`efw_…`).');

const AlertStatus = Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('expired')], {
  description: '`open` until refunded in time (`resolved`) or past `refundBy` (`expired`).',
});

export const DisputeAlertViewSchema = Type.Object(
  {
    id: Type.String({ description: '`dpa_…`' }),
    object: Type.Literal('dispute_alert'),
    chargeId: Type.String(),
    charge: ChargeSummary,
    amount: Money('What a refund must cover.'),
    currency: Type.Literal('TRY'),
    reason: Type.String(),
    reasonCode: Type.String(),
    network: Network,
    status: AlertStatus,
    refundBy: Timestamp('A refund by then drops the case.'),
    refundId: Type.Union([Type.String(), Type.Null()]),
    closedAt: NullableTimestamp('When it was resolved or expired.'),
    livemode: Type.Boolean(),
    createdAt: Timestamp('When the gateway learnt of it.'),
    updatedAt: Timestamp('When it last changed.'),
  },
  { additionalProperties: false },
);
export const DisputeAlertListSchema = page(DisputeAlertViewSchema);
export const DisputeAlertListQuerySchema = ListQueryWith({
  status: Type.Optional(AlertStatus),
  chargeId: chargeFilter,
});
export type DisputeAlertListQuery = Static<typeof DisputeAlertListQuerySchema>;
export const DisputeAlertIdParamsSchema = IdParamsSchema('The pre-dispute alert id (`dpa_…`).');
