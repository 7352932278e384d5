import { Type } from 'typebox';
import { errorResponses } from '../../http/errors.js';
import type { ApplicationRow } from '../../db/schema.js';
import type { FeeScheduleEntry, Organization } from '../organizations/types.js';
import { FEATURE_FLAGS, KYC_STATUSES, PAYMENT_METHODS } from '../organizations/types.js';
import { STAFF_ROLES } from './staff-roles.js';

/** The failures most operator API routes can answer, keyed by status. */
export const API_ERRORS = errorResponses(400, 401, 403, 404, 409, 429);
/** The environments an operator filters and sets by. */
export const ENVIRONMENTS = ['sandbox', 'live'] as const;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ApplicationViewSchema = Type.Object({
  id: Type.String(),
  status: Type.Enum(['NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED']),
  companyName: Type.String(),
  jurisdiction: Type.String(),
  vertical: Type.String(),
  verticalOther: Nullable(Type.String()),
  monthlyVolumeUSD: Type.Integer(),
  currentAcquirer: Nullable(Type.String()),
  whySwitching: Nullable(Type.String()),
  contactName: Type.String(),
  contactEmail: Type.String(),
  telegram: Nullable(Type.String()),
  submittedIp: Nullable(Type.String()),
  reviewedBy: Nullable(Type.String()),
  reviewedAt: Nullable(Type.String()),
  decisionReason: Nullable(Type.String()),
  organizationId: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export function applicationView(row: ApplicationRow) {
  return {
    id: row.id,
    status: row.status,
    companyName: row.company_name,
    jurisdiction: row.jurisdiction,
    vertical: row.vertical,
    verticalOther: row.vertical_other,
    monthlyVolumeUSD: Number(row.monthly_volume_usd),
    currentAcquirer: row.current_acquirer,
    whySwitching: row.why_switching,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    telegram: row.telegram,
    submittedIp: row.submitted_ip,
    reviewedBy: row.reviewed_by,
    reviewedAt: row.reviewed_at?.toISOString() ?? null,
    decisionReason: row.decision_reason,
    organizationId: row.organization_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const FeeSchema = Type.Object({
  paymentMethod: Type.Enum([...PAYMENT_METHODS]),
  basisPoints: Type.Integer(),
  fixedMinor: Type.String({ description: 'Minor units (kuruş), as a decimal string.' }),
});

export const OrganizationViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  applicationId: Nullable(Type.String()),
  contactEmail: Type.String(),
  kycStatus: Type.Enum([...KYC_STATUSES]),
  featureFlags: Type.Array(Type.Enum([...FEATURE_FLAGS])),
  rateLimits: Type.Object({
    live: Type.Union([Type.Integer(), Type.Null()]),
    sandbox: Type.Union([Type.Integer(), Type.Null()]),
  }),
  frozen: Type.Boolean(),
  frozenReason: Nullable(Type.String()),
  threeDSecureRequired: Type.Boolean({
    description: 'Every card payment of the organization goes through 3-D Secure (an operator’s setting).',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  fees: Type.Optional(Type.Array(FeeSchema)),
});

export function organizationView(organization: Organization, fees?: FeeScheduleEntry[]) {
  return {
    id: organization.id,
    name: organization.name,
    applicationId: organization.applicationId,
    contactEmail: organization.contactEmail,
    kycStatus: organization.kycStatus,
    featureFlags: organization.featureFlags,
    rateLimits: organization.rateLimits,
    frozen: organization.frozen,
    frozenReason: organization.frozenReason,
    threeDSecureRequired: organization.threeDSecureRequired,
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
    ...(fees ? { fees: fees.map((f) => ({ ...f, fixedMinor: f.fixedMinor.toString() })) } : {}),
  };
}

export const PageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** A decision or freeze reason: 1 to 2000 characters, not only white space (it is stored trimmed). */
export const ReasonBodySchema = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' }) },
  { additionalProperties: false },
);

export const IdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const LoginBodySchema = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: 256 }),
    _csrf: Type.Optional(Type.String()),
    next: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const StaffCreateSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    role: Type.Enum([...STAFF_ROLES]),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const StaffPasswordSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const FeeBodySchema = Type.Object(
  {
    basisPoints: Type.Integer({ minimum: 0, maximum: 10000 }),
    fixedMinor: Type.Union([
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      Type.String({ pattern: '^[0-9]{1,16}$' }),
    ]),
  },
  { additionalProperties: false },
);

export const DemoMerchantSchema = Type.Object(
  {
    companyName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    kycStatus: Type.Optional(Type.Enum([...KYC_STATUSES])),
    flags: Type.Optional(Type.Array(Type.Enum([...FEATURE_FLAGS]), { maxItems: 5, uniqueItems: true })),
  },
  { additionalProperties: false },
);

// The console's forms (urlencoded, so every value is text); each carries the session's `_csrf` token.
const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const WholeNumberText = Type.String({ pattern: '^\\s*\\d{1,16}\\s*$' });
/** Empty means "no limit of its own". */
const OptionalWholeNumberText = Type.String({ pattern: '^\\s*(\\d{1,16})?\\s*$' });

export const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });

export const ReasonFormSchema = Type.Object(
  { _csrf: Csrf, reason: Type.String({ maxLength: 8000, pattern: '\\S' }) },
  { additionalProperties: false },
);

export const KycFormSchema = Type.Object(
  { _csrf: Csrf, kycStatus: Type.Enum([...KYC_STATUSES]) },
  { additionalProperties: false },
);

export const FeeParamsSchema = Type.Object({
  id: Type.String({ maxLength: 64 }),
  paymentMethod: Type.Enum([...PAYMENT_METHODS]),
});

export const FeeFormSchema = Type.Object(
  { _csrf: Csrf, basisPoints: WholeNumberText, fixedMinor: WholeNumberText },
  { additionalProperties: false },
);

export const FlagParamsSchema = Type.Object({
  id: Type.String({ maxLength: 64 }),
  flag: Type.Enum([...FEATURE_FLAGS]),
});

export const FeatureFlagFormSchema = Type.Object(
  { _csrf: Csrf, enabled: Type.Optional(Type.Enum(['true', 'false'])) },
  { additionalProperties: false },
);

export const RateLimitsFormSchema = Type.Object(
  {
    _csrf: Csrf,
    live: Type.Optional(OptionalWholeNumberText),
    sandbox: Type.Optional(OptionalWholeNumberText),
  },
  { additionalProperties: false },
);
