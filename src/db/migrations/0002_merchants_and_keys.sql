-- Merchants (issue 3) and API keys (issue 4): organizations, staff and dashboard accounts, sessions,
-- single-use account tokens, API keys, the audit log and the e-mail outbox.

CREATE TABLE organizations (
  id                  text PRIMARY KEY,
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  application_id      text UNIQUE REFERENCES applications (id),
  contact_email       text NOT NULL,
  kyc_status          text NOT NULL CHECK (kyc_status IN ('REVIEWING', 'APPROVED')),
  feature_flags       text[] NOT NULL DEFAULT '{}'
                      CHECK (feature_flags <@ ARRAY['payouts', 'wallets', 'customers', 'events', 'apiKeys']::text[]),
  -- Requests per second per key; NULL means the configured default of the environment.
  rate_limit_live     integer CHECK (rate_limit_live > 0),
  rate_limit_sandbox  integer CHECK (rate_limit_sandbox > 0),
  frozen_at           timestamptz(3),
  frozen_reason       text,
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL
);

CREATE INDEX organizations_created_idx ON organizations (created_at DESC, id DESC);

-- Card fee per organization and payment method: round-half-up(amount * basis_points / 10000) + fixed_minor.
CREATE TABLE fee_schedules (
  organization_id  text NOT NULL REFERENCES organizations (id),
  payment_method   text NOT NULL CHECK (payment_method IN ('bank_transfer', 'credit_card_tr', 'credit_card_international')),
  basis_points     integer NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
  fixed_minor      bigint NOT NULL CHECK (fixed_minor >= 0),
  updated_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (organization_id, payment_method)
);

ALTER TABLE applications
  ADD COLUMN reviewed_by text,
  ADD COLUMN reviewed_at timestamptz(3),
  ADD COLUMN decision_reason text,
  ADD COLUMN organization_id text;

-- Operator (underwriting and operations) accounts, separate from merchants' dashboard users.
CREATE TABLE staff_users (
  id               text PRIMARY KEY,
  email            text NOT NULL,
  name             text NOT NULL,
  role             text NOT NULL CHECK (role IN ('admin', 'underwriter', 'support')),
  password_hash    text NOT NULL,
  failed_logins    integer NOT NULL DEFAULT 0,
  locked_until     timestamptz(3),
  disabled_at      timestamptz(3),
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL
);

CREATE UNIQUE INDEX staff_users_email_idx ON staff_users (lower(email));

-- Merchant dashboard users. A user belongs to one organization; e-mail is the login, unique overall.
CREATE TABLE users (
  id                text PRIMARY KEY,
  organization_id   text NOT NULL REFERENCES organizations (id),
  email             text NOT NULL,
  name              text,
  role              text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  status            text NOT NULL CHECK (status IN ('invited', 'active', 'disabled')),
  password_hash     text,
  -- AES-256-GCM box (see src/shared/secret-box.ts), never the clear secret.
  totp_secret_enc   text,
  totp_enabled_at   timestamptz(3),
  -- The last accepted TOTP time step: a code is accepted once.
  totp_last_step    bigint,
  failed_logins     integer NOT NULL DEFAULT 0,
  locked_until      timestamptz(3),
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3) NOT NULL,
  CHECK (status = 'invited' OR password_hash IS NOT NULL)
);

CREATE UNIQUE INDEX users_email_idx ON users (lower(email));
CREATE INDEX users_organization_idx ON users (organization_id);

CREATE TABLE recovery_codes (
  user_id     text NOT NULL REFERENCES users (id),
  code_hash   text NOT NULL,
  used_at     timestamptz(3),
  created_at  timestamptz(3) NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- Browser sessions of both realms. The cookie holds a random token; only its SHA-256 is stored.
CREATE TABLE sessions (
  token_hash     text PRIMARY KEY,
  realm          text NOT NULL CHECK (realm IN ('dashboard', 'operator')),
  subject_id     text NOT NULL,
  -- 'pending_mfa' after a correct password when a second factor is still owed.
  stage          text NOT NULL CHECK (stage IN ('active', 'pending_mfa')),
  environment    text NOT NULL DEFAULT 'sandbox' CHECK (environment IN ('sandbox', 'live')),
  ip             text,
  user_agent     text,
  created_at     timestamptz(3) NOT NULL,
  last_seen_at   timestamptz(3) NOT NULL,
  expires_at     timestamptz(3) NOT NULL,
  revoked_at     timestamptz(3)
);

CREATE INDEX sessions_subject_idx ON sessions (realm, subject_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- Single-use tokens sent by e-mail: password reset (1 hour), account activation (72 hours, reveals the
-- first live key once), invitation. Only the SHA-256 of the token is stored.
CREATE TABLE account_tokens (
  token_hash   text PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('password_reset', 'activation', 'invitation')),
  user_id      text NOT NULL REFERENCES users (id),
  created_at   timestamptz(3) NOT NULL,
  expires_at   timestamptz(3) NOT NULL,
  used_at      timestamptz(3)
);

CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, kind);

CREATE TABLE api_keys (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- What is shown to people ("sk_test_AbCd…"); never re-issued.
  display_prefix   text NOT NULL UNIQUE,
  -- SHA-256 of the whole key; the key itself is never stored.
  secret_hash      text NOT NULL UNIQUE,
  name             text,
  scopes           text[] NOT NULL CHECK (cardinality(scopes) > 0
                   AND scopes <@ ARRAY['read', 'write', 'payouts', 'all']::text[]),
  allowed_ips      text[] NOT NULL DEFAULT '{}',
  expires_at       timestamptz(3),
  last_used_at     timestamptz(3),
  created_by       text NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  revoked_at       timestamptz(3),
  revoked_by       text
);

CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, environment, created_at DESC, id DESC);

-- Who did what, when, with the state before and after. Append-only.
CREATE TABLE audit_log (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor            text NOT NULL,
  action           text NOT NULL,
  target_type      text NOT NULL,
  target_id        text NOT NULL,
  organization_id  text,
  before           jsonb,
  after            jsonb,
  request_id       text,
  ip               text,
  created_at       timestamptz(3) NOT NULL
);

CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id, created_at DESC);
CREATE INDEX audit_log_organization_idx ON audit_log (organization_id, created_at DESC);

-- E-mail outbox: written in the transaction of what it announces, sent after commit and retried by the
-- worker. Bodies are AES-256-GCM boxes because they can carry a sandbox key or a one-time link.
CREATE TABLE emails (
  id               text PRIMARY KEY,
  to_address       text NOT NULL,
  subject          text NOT NULL,
  body_enc         text NOT NULL,
  template         text NOT NULL,
  locale           text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'dev_mailbox')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz(3),
  last_error       text,
  created_at       timestamptz(3) NOT NULL,
  sent_at          timestamptz(3)
);

CREATE INDEX emails_pending_idx ON emails (next_attempt_at) WHERE status = 'pending';
CREATE INDEX emails_created_idx ON emails (created_at DESC, id DESC);
