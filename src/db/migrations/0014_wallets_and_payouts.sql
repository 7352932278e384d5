-- Issue 13: wallets with change controls, payouts and their rails (docs/decisions/0028-payouts.md).

-- The ledger's payout entries: one per step of a payout, each exactly once (the unique (kind, source_id)).
-- `payout_created` moves available -> in transit, `payout_paid` in transit -> payout clearing (paid out),
-- `payout_returned` in transit -> available (a failed or canceled payout). No `payout` entry was ever
-- written, so the old kind goes.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check
  CHECK (kind IN ('charge_succeeded', 'refund', 'settlement_batch', 'payout_created', 'payout_paid',
                  'payout_returned', 'reversal'));

-- A wallet can become the default more than once (made default, replaced, made default again): each time
-- is announced. Every other kind stays once per resource.
DROP INDEX events_once_idx;
CREATE UNIQUE INDEX events_once_idx ON events (resource_id, type)
  WHERE type NOT IN ('charge.refunded', 'wallet.default_changed');

-- Where an organization's USDT goes, per environment. A wallet is `pending` until its addition has been
-- confirmed by an owner and has cooled down (wallet_changes), then `active`; `archived` by the merchant,
-- `canceled` when its addition was canceled or expired. Sandbox wallets never receive real money: only
-- the sandbox chain pays them.
CREATE TABLE wallets (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  network          text NOT NULL CHECK (network IN ('tron', 'ethereum')),
  -- Canonical form: base58check for TRON, the EIP-55 checksummed form for Ethereum.
  address          text NOT NULL,
  label            text,
  status           text NOT NULL CHECK (status IN ('pending', 'active', 'archived', 'canceled')),
  is_default       boolean NOT NULL DEFAULT false,
  -- The API key (`key_…`) or dashboard user (`usr_…`) that asked for it.
  created_by       text NOT NULL,
  activated_at     timestamptz(3),
  archived_at      timestamptz(3),
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL,
  CONSTRAINT wallets_default_is_active CHECK (NOT is_default OR status = 'active')
);
CREATE UNIQUE INDEX wallets_one_default_idx ON wallets (organization_id, environment) WHERE is_default;
CREATE UNIQUE INDEX wallets_address_idx ON wallets (organization_id, environment, network, address)
  WHERE status IN ('pending', 'active');
CREATE INDEX wallets_owner_idx ON wallets (organization_id, environment, created_at DESC, id DESC);

-- A requested change of where payouts go: a new wallet (`add`, which may also make it the default) or a
-- change of default (`make_default`). It takes effect only after an owner confirms it (e-mail link, plus
-- a TOTP code when the owner has 2FA) and a cool-down passes; until then payouts go where they went.
CREATE TABLE wallet_changes (
  id                  text PRIMARY KEY,
  organization_id     text NOT NULL REFERENCES organizations (id),
  environment         text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  wallet_id           text NOT NULL REFERENCES wallets (id),
  kind                text NOT NULL CHECK (kind IN ('add', 'make_default')),
  make_default        boolean NOT NULL,
  status              text NOT NULL CHECK (status IN ('awaiting_confirmation', 'cooling_down', 'applied',
                                                      'canceled', 'expired')),
  -- SHA-256 of the single-use confirmation token e-mailed to the owners. Kept after use so that a used
  -- link is told apart from an unknown one; only a change `awaiting_confirmation` can be confirmed.
  confirm_token_hash  text UNIQUE,
  confirm_expires_at  timestamptz(3),
  confirmed_at        timestamptz(3),
  confirmed_by        text,
  -- When the change applies: confirmation time + the organization's cool-down.
  effective_at        timestamptz(3),
  applied_at          timestamptz(3),
  canceled_at         timestamptz(3),
  canceled_by         text,
  cancel_reason       text,
  requested_by        text NOT NULL,
  created_at          timestamptz(3) NOT NULL,
  updated_at          timestamptz(3) NOT NULL
);
CREATE INDEX wallet_changes_owner_idx ON wallet_changes (organization_id, environment, created_at DESC);
CREATE INDEX wallet_changes_due_idx ON wallet_changes (effective_at) WHERE status = 'cooling_down';
-- At most one open change per wallet.
CREATE UNIQUE INDEX wallet_changes_open_idx ON wallet_changes (wallet_id)
  WHERE status IN ('awaiting_confirmation', 'cooling_down');

-- The cool-down of wallet changes per organization (operator-set); without a row, the configured default.
CREATE TABLE wallet_settings (
  organization_id   text PRIMARY KEY REFERENCES organizations (id),
  cooldown_seconds  integer NOT NULL CHECK (cooldown_seconds >= 0),
  updated_by        text NOT NULL,
  updated_at        timestamptz(3) NOT NULL
);

-- The smallest payout per network and environment, in TRY minor units (operator-set).
CREATE TABLE payout_minimums (
  network      text NOT NULL CHECK (network IN ('tron', 'ethereum')),
  environment  text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  amount       bigint NOT NULL CHECK (amount > 0),
  updated_by   text NOT NULL,
  updated_at   timestamptz(3) NOT NULL,
  PRIMARY KEY (network, environment)
);
INSERT INTO payout_minimums (network, environment, amount, updated_by, updated_at) VALUES
  ('tron', 'sandbox', 10000, 'migration', now()),
  ('tron', 'live', 50000, 'migration', now()),
  ('ethereum', 'sandbox', 10000, 'migration', now()),
  ('ethereum', 'live', 500000, 'migration', now());

-- A payout of TRY from the available balance, as USDT to a wallet. `pending` until the rail has a
-- transaction (`in_transit`, its hash recorded), then `completed` when the chain confirms it, or
-- `failed`; `canceled` only while pending. Never backwards (payouts_guard).
CREATE TABLE payouts (
  id                 text PRIMARY KEY,
  organization_id    text NOT NULL REFERENCES organizations (id),
  environment        text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  -- TRY minor units debited from the available balance.
  amount             bigint NOT NULL CHECK (amount > 0),
  currency           text NOT NULL CHECK (currency = 'TRY'),
  -- USDT minor units (6 decimals) sent, rounded down.
  payout_amount      bigint NOT NULL CHECK (payout_amount > 0),
  payout_currency    text NOT NULL CHECK (payout_currency = 'USDT'),
  -- The locked rate the payout was converted at: USDT per TRY, an exact decimal (the market rate less
  -- the FX spread), with its source and time; the market rate and the spread in basis points.
  rate               text NOT NULL,
  market_rate        text NOT NULL,
  spread_bps         integer NOT NULL CHECK (spread_bps BETWEEN 0 AND 1000),
  -- TRY minor units of `amount` kept as FX revenue: `amount` less what the USDT sent is worth at the
  -- market rate. Recognised when the payout is paid (the ledger's `payout_paid` entry).
  spread_amount      bigint NOT NULL CHECK (spread_amount >= 0),
  rate_source        text NOT NULL,
  rate_at            timestamptz(3) NOT NULL,
  network            text NOT NULL CHECK (network IN ('tron', 'ethereum')),
  wallet_id          text NOT NULL REFERENCES wallets (id),
  address            text NOT NULL,
  rail               text NOT NULL CHECK (rail IN ('sandbox_chain', 'treasury')),
  status             text NOT NULL CHECK (status IN ('pending', 'in_transit', 'completed', 'failed', 'canceled')),
  automatic          boolean NOT NULL,
  tx_hash            text,
  arrival_date       date,
  failure_code       text,
  failure_message    text,
  description        text,
  metadata           jsonb NOT NULL DEFAULT '{}',
  created_by         text,
  -- Set before the rail is first asked to send: a payout with it and no hash is recovered by asking the
  -- rail what it did, never by sending again.
  submitted_at       timestamptz(3),
  in_transit_at      timestamptz(3),
  completed_at       timestamptz(3),
  failed_at          timestamptz(3),
  canceled_at        timestamptz(3),
  created_at         timestamptz(3) NOT NULL,
  updated_at         timestamptz(3) NOT NULL,
  -- The job kit's queue columns (src/worker/queue.ts): submission and confirmation.
  attempts           integer NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz(3),
  lease_token        text,
  parked_at          timestamptz(3),
  last_error         text,
  -- One transaction per payout and one payout per transaction.
  CONSTRAINT payouts_tx_hash_key UNIQUE (tx_hash),
  -- Live money never goes through the sandbox chain, and the sandbox never through the treasury.
  CONSTRAINT payouts_rail_environment CHECK ((environment = 'live') = (rail = 'treasury')),
  CONSTRAINT payouts_hash_when_sent CHECK (status NOT IN ('in_transit', 'completed') OR tx_hash IS NOT NULL)
);
CREATE INDEX payouts_owner_idx ON payouts (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX payouts_status_idx ON payouts (status, rail, network, created_at);
CREATE INDEX payouts_due_idx ON payouts (next_attempt_at) WHERE status IN ('pending', 'in_transit') AND parked_at IS NULL;

-- The state machine and the immutable facts of a payout, enforced below the code.
CREATE FUNCTION payouts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
       (OLD.status = 'pending' AND NEW.status IN ('in_transit', 'failed', 'canceled'))
    OR (OLD.status = 'in_transit' AND NEW.status IN ('completed', 'failed'))) THEN
    RAISE EXCEPTION 'payout %: % -> % is not a transition', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.tx_hash IS NOT NULL AND NEW.tx_hash IS DISTINCT FROM OLD.tx_hash THEN
    RAISE EXCEPTION 'payout %: the transaction hash is recorded and cannot change', OLD.id
      USING ERRCODE = 'check_violation';
  END IF;
  IF (NEW.organization_id, NEW.environment, NEW.amount, NEW.currency, NEW.payout_amount, NEW.rate,
      NEW.market_rate, NEW.spread_bps, NEW.spread_amount, NEW.network, NEW.wallet_id, NEW.address, NEW.rail)
     IS DISTINCT FROM
     (OLD.organization_id, OLD.environment, OLD.amount, OLD.currency, OLD.payout_amount, OLD.rate,
      OLD.market_rate, OLD.spread_bps, OLD.spread_amount, OLD.network, OLD.wallet_id, OLD.address, OLD.rail) THEN
    RAISE EXCEPTION 'payout %: amount, rate and destination are fixed at creation', OLD.id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER payouts_guard BEFORE UPDATE ON payouts FOR EACH ROW EXECUTE FUNCTION payouts_guard();
CREATE FUNCTION payouts_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'payouts are never deleted: % on % refused', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER payouts_no_delete BEFORE DELETE ON payouts FOR EACH ROW EXECUTE FUNCTION payouts_refuse_delete();
