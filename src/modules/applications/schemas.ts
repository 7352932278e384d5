import { Type, type Static } from 'typebox';

export const VERTICALS = [
  'forex',
  'betting',
  'iptv',
  'adult',
  'dating',
  'nutra',
  'dropshipping',
  'cryptoSaaS',
  'affiliate',
  'other',
] as const;

export const APPLICATION_LIMITS = {
  shortText: 200,
  jurisdiction: 100,
  whySwitching: 2000,
  email: 254,
  telegram: 100,
  minMonthlyVolumeUSD: 1000,
} as const;

const requiredText = (maxLength: number, description: string) =>
  Type.String({
    minLength: 1,
    maxLength,
    description: `${description} Trimmed; 1 to ${maxLength} characters.`,
  });
const optionalText = (maxLength: number, description: string) =>
  Type.Optional(
    Type.String({
      maxLength,
      description: `${description} Trimmed; at most ${maxLength} characters; empty means absent.`,
    }),
  );

/** Spec section 2.1. Unknown members are refused rather than silently dropped. */
export const ApplicationCreateSchema = Type.Object(
  {
    companyName: requiredText(APPLICATION_LIMITS.shortText, 'Registered company name.'),
    jurisdiction: requiredText(APPLICATION_LIMITS.jurisdiction, 'Country of registration.'),
    vertical: Type.Enum([...VERTICALS], { description: 'Business vertical.' }),
    verticalOther: optionalText(
      APPLICATION_LIMITS.shortText,
      'Required when vertical is "other", refused otherwise.',
    ),
    monthlyVolumeUSD: Type.Integer({
      minimum: APPLICATION_LIMITS.minMonthlyVolumeUSD,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Estimated monthly volume in US dollars; an integer of at least 1000.',
    }),
    currentAcquirer: optionalText(APPLICATION_LIMITS.shortText, 'Current acquirer, if any.'),
    whySwitching: optionalText(APPLICATION_LIMITS.whySwitching, 'Free text.'),
    contactName: requiredText(APPLICATION_LIMITS.shortText, 'Contact person.'),
    contactEmail: Type.String({
      format: 'email',
      maxLength: APPLICATION_LIMITS.email,
      description: 'Contact e-mail address; the first API keys are sent here on approval.',
    }),
    telegram: optionalText(APPLICATION_LIMITS.telegram, 'Optional messaging handle.'),
  },
  {
    additionalProperties: false,
    if: { properties: { vertical: { const: 'other' } }, required: ['vertical'] },
    then: { required: ['verticalOther'], properties: { verticalOther: { minLength: 1 } } },
  },
);
export type ApplicationCreate = Static<typeof ApplicationCreateSchema>;

export const ApplicationCreatedSchema = Type.Object(
  {
    id: Type.String({ pattern: '^app_', description: 'Application identifier, prefix `app_`.' }),
    status: Type.Literal('NEW', { description: 'Initial status.' }),
    createdAt: Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' }),
  },
  { additionalProperties: false },
);
export type ApplicationCreated = Static<typeof ApplicationCreatedSchema>;
