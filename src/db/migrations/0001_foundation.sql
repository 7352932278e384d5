-- Merchant applications (spec 2.1) and the idempotency store shared by every write endpoint.

CREATE TABLE applications (
  id                  text PRIMARY KEY,
  status              text NOT NULL CHECK (status IN ('NEW', 'IN_REVIEW', 'APPROVED', 'REJECTED')),
  company_name        text NOT NULL CHECK (char_length(company_name) BETWEEN 1 AND 200),
  jurisdiction        text NOT NULL CHECK (char_length(jurisdiction) BETWEEN 1 AND 100),
  vertical            text NOT NULL CHECK (vertical IN ('forex', 'betting', 'iptv', 'adult', 'dating', 'nutra',
                                                        'dropshipping', 'cryptoSaaS', 'affiliate', 'other')),
  vertical_other      text CHECK (char_length(vertical_other) BETWEEN 1 AND 200),
  monthly_volume_usd  bigint NOT NULL CHECK (monthly_volume_usd >= 1000),
  current_acquirer    text CHECK (char_length(current_acquirer) <= 200),
  why_switching       text CHECK (char_length(why_switching) <= 2000),
  contact_name        text NOT NULL CHECK (char_length(contact_name) BETWEEN 1 AND 200),
  contact_email       text NOT NULL CHECK (char_length(contact_email) BETWEEN 3 AND 254),
  telegram            text CHECK (char_length(telegram) <= 100),
  submitted_ip        inet,
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL,
  CHECK (vertical <> 'other' OR vertical_other IS NOT NULL)
);

CREATE INDEX applications_status_created_idx ON applications (status, created_at DESC, id DESC);
CREATE INDEX applications_created_idx ON applications (created_at DESC, id DESC);

CREATE TABLE idempotency_keys (
  scope            text NOT NULL,
  key              text NOT NULL,
  fingerprint      text NOT NULL,
  state            text NOT NULL CHECK (state IN ('in_flight', 'completed')),
  response_status  integer,
  response_body    text,
  locked_until     timestamptz(3) NOT NULL,
  created_at       timestamptz(3) NOT NULL,
  expires_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (scope, key),
  CHECK (state = 'in_flight' OR response_status IS NOT NULL)
);

CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
