import { Type } from 'typebox';
import { PASSWORD_RULES } from '../../shared/passwords.js';
import { INVITABLE_ROLES } from './roles.js';

export const USER_LIMITS = { email: 254, name: 200, code: 20, token: 100 } as const;

const Email = Type.String({
  format: 'email',
  maxLength: USER_LIMITS.email,
  description: 'The e-mail address of the dashboard account.',
});
const NewPassword = Type.String({
  minLength: 1,
  maxLength: PASSWORD_RULES.maxLength,
  description: `The new password: ${PASSWORD_RULES.minLength} to ${PASSWORD_RULES.maxLength} characters, not one repeated character, not the name part of the e-mail address.`,
});
const Code = Type.String({
  minLength: 1,
  maxLength: USER_LIMITS.code,
  description: 'A 6-digit code of the authenticator app, or an unused recovery code (`xxxxx-xxxxx`).',
});
const Status = (value: string, description: string) => Type.Literal(value, { description });

export const ForgotPasswordSchema = Type.Object({ email: Email }, { additionalProperties: false });

export const ForgotPasswordAcceptedSchema = Type.Object(
  {
    status: Status('accepted', 'Always `accepted`, whether or not the address has an account.'),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ResetPasswordSchema = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: USER_LIMITS.token,
      description: 'The token of the e-mailed link (`/reset-password/<token>`): single use, valid 1 hour.',
    }),
    password: NewPassword,
  },
  { additionalProperties: false },
);

export const PasswordResetSchema = Type.Object(
  {
    status: Status('password_reset', 'The password is set; every session of the account has ended.'),
  },
  { additionalProperties: false },
);

export const ChangePasswordSchema = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_RULES.maxLength }),
    newPassword: NewPassword,
  },
  { additionalProperties: false },
);

export const PasswordChangedSchema = Type.Object(
  {
    status: Status('password_changed', 'The password is set; every other session of the account has ended.'),
  },
  { additionalProperties: false },
);

export const EmptyBodySchema = Type.Object({}, { additionalProperties: false });

export const TotpEnrollmentSchema = Type.Object(
  {
    otpauthUri: Type.String({
      description: '`otpauth://totp/…` for authenticator apps (SHA1, 6 digits, 30 s).',
    }),
    secret: Type.String({ description: 'The same secret in base32, for typing it in by hand.' }),
    qrCodeDataUrl: Type.String({ description: 'A `data:image/png;base64,…` QR code of `otpauthUri`.' }),
  },
  { additionalProperties: false },
);

export const TotpCodeSchema = Type.Object({ code: Code }, { additionalProperties: false });

export const TotpEnabledSchema = Type.Object(
  {
    enabled: Type.Literal(true),
    recoveryCodes: Type.Array(Type.String(), {
      minItems: 10,
      maxItems: 10,
      description: 'Ten single-use recovery codes, shown this once; only their hashes are kept.',
    }),
  },
  { additionalProperties: false },
);

export const TotpDisabledSchema = Type.Object(
  { enabled: Type.Literal(false) },
  { additionalProperties: false },
);

// Page forms (application/x-www-form-urlencoded). Every one carries the `_csrf` field.
// Optional in the schema so that a missing token is refused as a CSRF failure (403), not as a malformed form.
const Csrf = Type.Optional(Type.String({ maxLength: 200 }));
const FormText = (maxLength: number) => Type.String({ maxLength });

export const LoginFormSchema = Type.Object(
  { _csrf: Csrf, email: FormText(USER_LIMITS.email), password: FormText(PASSWORD_RULES.maxLength) },
  { additionalProperties: false },
);
export const CodeFormSchema = Type.Object(
  { _csrf: Csrf, code: FormText(USER_LIMITS.code) },
  { additionalProperties: false },
);
export const CsrfFormSchema = Type.Object({ _csrf: Csrf }, { additionalProperties: false });
export const SetPasswordFormSchema = Type.Object(
  {
    _csrf: Csrf,
    name: Type.Optional(FormText(USER_LIMITS.name)),
    password: FormText(PASSWORD_RULES.maxLength),
    passwordConfirmation: FormText(PASSWORD_RULES.maxLength),
  },
  { additionalProperties: false },
);
export const EnvironmentFormSchema = Type.Object(
  {
    _csrf: Csrf,
    environment: Type.Enum(['sandbox', 'live']),
    /** The dashboard area to go back to after the switch (a path of ours: never another origin). */
    return: Type.Optional(Type.String({ maxLength: 100, pattern: '^/dashboard(/[a-z0-9-]+)*$' })),
  },
  { additionalProperties: false },
);
export const InviteFormSchema = Type.Object(
  {
    _csrf: Csrf,
    email: FormText(USER_LIMITS.email),
    name: Type.Optional(FormText(USER_LIMITS.name)),
    role: Type.Enum([...INVITABLE_ROLES]),
  },
  { additionalProperties: false },
);
export const TokenParamsSchema = Type.Object({ token: Type.String({ maxLength: USER_LIMITS.token }) });
export const LangQuerySchema = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })) });
export const ApiKeyFormSchema = Type.Object(
  {
    _csrf: Csrf,
    name: Type.Optional(FormText(100)),
    // One checkbox gives a string, several an array.
    scopes: Type.Optional(
      Type.Union([FormText(20), Type.Array(FormText(20), { maxItems: 10 })], {
        description: 'read, write, payouts, all',
      }),
    ),
    allowedIps: Type.Optional(FormText(4000)),
    expiresAt: Type.Optional(FormText(40)),
  },
  { additionalProperties: false },
);
export const ApiKeyParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
