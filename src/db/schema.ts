import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;
type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;

export interface ApplicationsTable {
  id: string;
  status: 'NEW' | 'IN_REVIEW' | 'APPROVED' | 'REJECTED';
  company_name: string;
  jurisdiction: string;
  vertical: string;
  vertical_other: string | null;
  monthly_volume_usd: ColumnType<string, string | bigint, string | bigint>;
  current_acquirer: string | null;
  why_switching: string | null;
  contact_name: string;
  contact_email: string;
  telegram: string | null;
  submitted_ip: string | null;
  reviewed_by: ColumnType<string | null, string | null | undefined, string | null>;
  reviewed_at: NullableTimestamp;
  decision_reason: ColumnType<string | null, string | null | undefined, string | null>;
  organization_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_body: string | null;
  locked_until: Timestamp;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** The caller that claimed the key (`key:<id>`), the only one its outcome is replayed to. */
  caller: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SchemaMigrationsTable {
  name: string;
  checksum: string;
  applied_at: Generated<Date>;
}

export type Environment = 'sandbox' | 'live';
export type KycStatus = 'REVIEWING' | 'APPROVED';
export type FeatureFlag = 'payouts' | 'wallets' | 'customers' | 'events' | 'apiKeys' | 'disputes';
export type PaymentMethod = 'bank_transfer' | 'credit_card_tr' | 'credit_card_international';
export type UserRole = 'owner' | 'admin' | 'developer' | 'viewer';
export type StaffRole = 'admin' | 'underwriter' | 'support';
export type ApiKeyScope = 'read' | 'write' | 'payouts' | 'all';
type BigintColumn = ColumnType<string, string | bigint, string | bigint>;

export interface OrganizationsTable {
  id: string;
  name: string;
  application_id: string | null;
  contact_email: string;
  kyc_status: KycStatus;
  feature_flags: ColumnType<FeatureFlag[], FeatureFlag[] | undefined, FeatureFlag[]>;
  rate_limit_live: number | null;
  rate_limit_sandbox: number | null;
  frozen_at: NullableTimestamp;
  frozen_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The trading name the checkout shows; a row inserted without one gets `name` (migration 0019). */
  display_name: ColumnType<string, string | undefined, string>;
  /** `#rrggbb`, lower case; null is the gateway's own colour. */
  brand_color: ColumnType<string | null, string | null | undefined, string | null>;
  /** Every card payment goes through 3-D Secure (migration 0041); an operator's audited setting. */
  require_three_d_secure: ColumnType<boolean, boolean | undefined, boolean>;
}

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface OrganizationLogosTable {
  organization_id: string;
  sha256: string;
  content_type: LogoContentType;
  bytes: Uint8Array;
  created_at: Timestamp;
}

export interface FeeSchedulesTable {
  organization_id: string;
  payment_method: PaymentMethod;
  basis_points: number;
  fixed_minor: BigintColumn;
  updated_at: Timestamp;
}

export interface StaffUsersTable {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  password_hash: string;
  failed_logins: Generated<number>;
  locked_until: NullableTimestamp;
  disabled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  name: string | null;
  role: UserRole;
  status: 'invited' | 'active' | 'disabled';
  password_hash: string | null;
  totp_secret_enc: string | null;
  totp_enabled_at: NullableTimestamp;
  totp_last_step: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  failed_logins: Generated<number>;
  locked_until: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface SessionsTable {
  token_hash: string;
  realm: 'dashboard' | 'operator';
  subject_id: string;
  stage: 'active' | 'pending_mfa';
  environment: ColumnType<Environment, Environment | undefined, Environment>;
  ip: string | null;
  user_agent: string | null;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface AccountTokensTable {
  token_hash: string;
  kind: 'password_reset' | 'activation' | 'invitation';
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  environment: Environment;
  display_prefix: string;
  secret_hash: string;
  name: string | null;
  scopes: ApiKeyScope[];
  allowed_ips: ColumnType<string[], string[] | undefined, string[]>;
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  created_by: string;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_by: string | null;
  /** When the retention job purged the revoked key's audit trail (30 days after revocation). */
  audit_purged_at: NullableTimestamp;
}

/** The per-key request log: what each request of a key was, never its body or headers. */
export interface ApiKeyRequestsTable {
  id: ColumnType<string, never, never>;
  key_id: string;
  organization_id: string;
  environment: Environment;
  method: string;
  route: string;
  resource_id: string | null;
  status_code: number;
  request_id: string;
  ip: string | null;
  created_at: Timestamp;
}

/** One row; its version moves with every change that can invalidate a cached key lookup. */
export interface ApiKeyAuthEpochTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  version: ColumnType<string, string | bigint, string | bigint>;
  /** How long an instance may trust a reading of `version` (decision 0038); 0: a reading per request. */
  lease_ms: ColumnType<number, number | undefined, number>;
}

export type ChargeStatus = 'pending' | 'succeeded' | 'failed' | 'expired';
export type ChargeCreationState = 'creating' | 'created' | 'rejected' | 'abandoned';
/** The acquirer's payment status (migration 0013 checks it); the acquirer module's `ProviderStatus`. */
export type ChargeProviderStatus =
  | 'awaiting_payment'
  | 'requires_action'
  | 'succeeded'
  | 'failed'
  | 'canceled'
  | 'partially_refunded'
  | 'refunded';

export interface ChargesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  amount: BigintColumn;
  currency: 'TRY';
  payment_method: PaymentMethod;
  merchant_reference: string;
  status: ColumnType<ChargeStatus, ChargeStatus | undefined, ChargeStatus>;
  creation_state: ChargeCreationState;
  creation_locked_until: NullableTimestamp;
  idempotency_key: string | null;
  /**
   * The fingerprint of the request that made the charge with an idempotency key (migration 0032, ADR
   * 0052: the body in canonical JSON without the customer's ID number, HMAC-SHA-256 `h1:` since ADR
   * 0054, plain SHA-256 hex before); null without a key and on charges written before it.
   */
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
  provider: string;
  provider_request: ColumnType<unknown, string, never>;
  provider_payment_id: string | null;
  provider_status: ChargeProviderStatus | null;
  provider_error: ColumnType<unknown, string | null, string | null>;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  customer_reference: string | null;
  customer_id_number_enc: string | null;
  /** The customer the charge was made for (`customerId`, flag `customers`), its details copied above. */
  customer_id: ColumnType<string | null, string | null | undefined, never>;
  metadata: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  return_url: string | null;
  expires_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  card_brand: ColumnType<string | null, string | null | undefined, string | null>;
  card_last4: ColumnType<string | null, string | null | undefined, string | null>;
  card_attempts: ColumnType<number, number | undefined, number>;
  /**
   * Until when attempt `card_attempts` is claimed by the checkout call that is at the acquirer with it
   * (migration 0037, ADR 0065); null when no attempt is in flight. A time in the past is a claim a
   * crashed process left.
   */
  card_attempt_claimed_until: NullableTimestamp;
  failure_code: ColumnType<string | null, string | null | undefined, string | null>;
  failure_message: ColumnType<string | null, string | null | undefined, string | null>;
  bank_transfer: ColumnType<BankTransferInstructions | null, string | null | undefined, string | null>;
  refunded_amount: ColumnType<string, string | bigint | undefined, string | bigint>;
  finalized_at: NullableTimestamp;
  /** The API key that created the charge. */
  created_by_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The expiry job's queue columns (src/worker/queue.ts, migration 0012). */
  expiry_attempts: Generated<number>;
  expiry_next_attempt_at: NullableTimestamp;
  expiry_lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  expiry_parked_at: NullableTimestamp;
  expiry_last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface BankTransferInstructions {
  iban: string;
  accountHolder: string;
  paymentReference: string;
}

/** One card attempt of the hosted checkout (migration 0023): what the acquirer answered, the card's last four. */
export interface ChargeCardAttemptsTable {
  charge_id: string;
  number: number;
  outcome: 'succeeded' | 'declined' | 'challenge' | 'error';
  failure_code: string | null;
  card_brand: string | null;
  card_last4: string | null;
  attempted_at: Timestamp;
}

export interface ProviderNotificationsTable {
  provider: string;
  id: string;
  type: string;
  payment_id: string;
  charge_id: string | null;
  body: ColumnType<unknown, string, never>;
  /**
   * `mismatch`: refused, its amount, currency or reference disagrees with the charge; `unconfirmed`: the
   * acquirer's read-back did not confirm the state it reported (docs/decisions/0013).
   */
  outcome: 'applied' | 'stale' | 'unknown_payment' | 'mismatch' | 'unconfirmed';
  received_at: Timestamp;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundsTable {
  id: string;
  charge_id: string;
  organization_id: string;
  environment: Environment;
  amount: BigintColumn;
  currency: 'TRY';
  status: RefundStatus;
  reason: string | null;
  idempotency_key: string | null;
  provider_refund_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The API key that created the refund. */
  created_by_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * The fingerprint of the request that made the refund with an idempotency key (migration 0033, ADR
   * 0052: the body in canonical JSON, HMAC-SHA-256 `h1:` since ADR 0054, plain SHA-256 hex before); null
   * without a key and on refunds written before it.
   */
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
  /** The retry job's queue columns (src/worker/queue.ts, migration 0012). */
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  parked_at: NullableTimestamp;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EventsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  type: string;
  resource_id: string;
  payload: ColumnType<Record<string, unknown>, string, never>;
  created_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  organization_id: string | null;
  before: ColumnType<unknown, string | null, string | null>;
  after: ColumnType<unknown, string | null, string | null>;
  request_id: string | null;
  ip: string | null;
  created_at: Timestamp;
}

export type OperatorAlertKind =
  | 'notification_mismatch'
  | 'negative_pending_balance'
  | 'job_parked'
  | 'settlement_held'
  | 'reconciliation_differences'
  /** Migration 0035 (ADR 0055). */
  | 'refund_mismatch'
  | 'payout_sent_not_pending'
  /** Migration 0039 (ADR 0076). */
  | 'dispute_debt_unrecoverable'
  | 'dispute_ratio';

export interface OperatorAlertsTable {
  id: Generated<string>;
  kind: OperatorAlertKind;
  organization_id: string | null;
  environment: Environment | null;
  subject_id: string;
  charge_id: string | null;
  message: string;
  details: ColumnType<unknown, string, never>;
  created_at: Timestamp;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
}

export interface EmailsTable {
  id: string;
  to_address: string;
  subject: string;
  body_enc: string;
  template: string;
  locale: string;
  status: 'pending' | 'sent' | 'failed' | 'dev_mailbox';
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  parked_at: NullableTimestamp;
}

/** Calendar schedules (migration 0012): one row per job and period, claimed once across workers. */
export interface JobPeriodsTable {
  job: string;
  period_start: Timestamp;
  state: 'running' | 'done' | 'parked';
  attempts: number;
  lease_token: string | null;
  lease_expires_at: NullableTimestamp;
  worker_id: string;
  last_error: string | null;
  started_at: Timestamp;
  finished_at: NullableTimestamp;
}

export type JobRunOutcome = 'succeeded' | 'partial' | 'failed';

/** The run log (migration 0012): each run of a job that did something or failed. */
export interface JobRunsTable {
  id: Generated<string>;
  job: string;
  worker_id: string;
  started_at: Timestamp;
  ended_at: Timestamp;
  rows_processed: number;
  errors: number;
  outcome: JobRunOutcome;
  error: string | null;
  period_start: NullableTimestamp;
}

/** Failed-login counters; `email` is '' on the per-address row. */
export interface LoginThrottleTable {
  realm: 'dashboard' | 'operator';
  email: string;
  address: string;
  failures: number;
  blocked_until: NullableTimestamp;
  updated_at: Timestamp;
}

export interface DB {
  applications: ApplicationsTable;
  idempotency_keys: IdempotencyKeysTable;
  schema_migrations: SchemaMigrationsTable;
  organizations: OrganizationsTable;
  organization_logos: OrganizationLogosTable;
  fee_schedules: FeeSchedulesTable;
  staff_users: StaffUsersTable;
  users: UsersTable;
  recovery_codes: RecoveryCodesTable;
  sessions: SessionsTable;
  account_tokens: AccountTokensTable;
  api_keys: ApiKeysTable;
  api_key_auth_epoch: ApiKeyAuthEpochTable;
  api_key_requests: ApiKeyRequestsTable;
  audit_log: AuditLogTable;
  emails: EmailsTable;
  charges: ChargesTable;
  provider_notifications: ProviderNotificationsTable;
  charge_card_attempts: ChargeCardAttemptsTable;
  refunds: RefundsTable;
  events: EventsTable;
  journal_entries: JournalEntriesTable;
  ledger_postings: LedgerPostingsTable;
  ledger_balance_checkpoints: LedgerBalanceCheckpointsTable;
  customers: CustomersTable;
  ledger_checkpoint_horizon: LedgerCheckpointHorizonTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  operator_alerts: OperatorAlertsTable;
  login_throttle: LoginThrottleTable;
  job_periods: JobPeriodsTable;
  job_runs: JobRunsTable;
  wallets: WalletsTable;
  wallet_changes: WalletChangesTable;
  wallet_settings: WalletSettingsTable;
  payout_minimums: PayoutMinimumsTable;
  payouts: PayoutsTable;
  settlement_batches: SettlementBatchesTable;
  settlement_items: SettlementItemsTable;
  settlement_settings: SettlementSettingsTable;
  settlement_reserve_releases: SettlementReserveReleasesTable;
  settlement_reserve_recoveries: SettlementReserveRecoveriesTable;
  fx_rates: FxRatesTable;
  fx_spreads: FxSpreadsTable;
  fx_rate_sources: FxRateSourcesTable;
  reconciliation_runs: ReconciliationRunsTable;
  reconciliation_differences: ReconciliationDifferencesTable;
  business_closures: BusinessClosuresTable;
  disputes: DisputesTable;
  fraud_warnings: FraudWarningsTable;
  dispute_alerts: DisputeAlertsTable;
  dispute_fee_schedules: DisputeFeeSchedulesTable;
  files: FilesTable;
  file_contents: FileContentsTable;
  dispute_refund_rules: DisputeRefundRulesTable;
  dispute_auto_refunds: DisputeAutoRefundsTable;
  dispute_ratio_settings: DisputeRatioSettingsTable;
  dispute_ratio_summaries: DisputeRatioSummariesTable;
  dispute_ratio_days: DisputeRatioDaysTable;
  card_bins: CardBinsTable;
}

export type ApplicationRow = Selectable<ApplicationsTable>;
export type NewApplicationRow = Insertable<ApplicationsTable>;

export type JournalEntryKind =
  | 'charge_succeeded'
  | 'refund'
  | 'settlement_batch'
  | 'payout_created'
  | 'payout_paid'
  | 'payout_returned'
  | 'reserve_held'
  | 'reserve_released'
  | 'reversal'
  /** Migration 0039 (ADR 0076). */
  | 'dispute_funds_withdrawn'
  | 'dispute_funds_reinstated'
  | 'dispute_fee'
  | 'dispute_fee_returned'
  | 'debt_recovered';
export type LedgerAccount =
  | 'acquirer_clearing'
  | 'merchant_pending'
  | 'merchant_available'
  | 'merchant_in_transit'
  | 'fee_revenue'
  | 'payout_clearing'
  | 'merchant_reserve'
  | 'fx_revenue';
/** Ledger rows are append-only (triggers refuse UPDATE and DELETE): no column is updatable. */
type AppendOnly<T> = ColumnType<T, T, never>;

export interface JournalEntriesTable {
  id: ColumnType<string, never, never>;
  organization_id: AppendOnly<string>;
  environment: AppendOnly<Environment>;
  kind: AppendOnly<JournalEntryKind>;
  source_id: AppendOnly<string>;
  currency: AppendOnly<'TRY'>;
  created_at: AppendOnly<Date>;
  /**
   * A charge's or refund's entry: the charge, and its merchant reference (migration 0029). Null on other
   * kinds and on entries written before 0029.
   */
  charge_id: ColumnType<string | null, string | null | undefined, never>;
  merchant_reference: ColumnType<string | null, string | null | undefined, never>;
}

export interface LedgerPostingsTable {
  id: ColumnType<string, never, never>;
  entry_id: ColumnType<string, string, never>;
  organization_id: AppendOnly<string>;
  environment: AppendOnly<Environment>;
  account: AppendOnly<LedgerAccount>;
  currency: AppendOnly<'TRY'>;
  /** Signed minor units: debits positive, credits negative, never zero. */
  amount: ColumnType<string, string | bigint, never>;
  created_at: AppendOnly<Date>;
  /** The writing transaction's id (xid8, as decimal text), set by the database: see ledger checkpoints. */
  written_by: ColumnType<string, never, never>;
}

/** Per owner account: the sum of its postings written below `covers_before` (migration 0017). */
export interface LedgerBalanceCheckpointsTable {
  organization_id: string;
  environment: Environment;
  account: LedgerAccount;
  currency: 'TRY';
  /** Signed minor units (debits positive), decimal text. */
  balance: ColumnType<string, string, string>;
  covers_before: ColumnType<string, string, string>;
  updated_at: Date;
}

export interface LedgerCheckpointHorizonTable {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  covers_before: ColumnType<string, string, string>;
  updated_at: Date;
}

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: NullableTimestamp;
  /**
   * Until when the endpoint's deliveries wait, queued, while its secret is switched (migration 0038,
   * ADR 0068); null when not paused.
   */
  paused_until: NullableTimestamp;
  failing_since: NullableTimestamp;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The API key that created the endpoint; null when it was made in the dashboard. */
  created_by_key_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  organization_id: string;
  environment: Environment;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  lease_token: string | null;
  last_attempt_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  organization_id: string;
  environment: Environment;
  url: string;
  succeeded: boolean;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  attempted_at: Timestamp;
}

/** USDT networks (product decision 25). */
export type Network = 'tron' | 'ethereum';
export type WalletStatus = 'pending' | 'active' | 'archived' | 'canceled';

/** A merchant's customer; a deleted one keeps its row, erased (migration 0018). */
export interface CustomersTable {
  id: string;
  organization_id: string;
  environment: Environment;
  name: string | null;
  email: string | null;
  phone: string | null;
  reference: string | null;
  /** Sealed by the secret box; never returned. */
  id_number_enc: string | null;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

export interface WalletsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  network: Network;
  address: string;
  label: string | null;
  status: WalletStatus;
  is_default: Generated<boolean>;
  created_by: string;
  activated_at: NullableTimestamp;
  archived_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WalletChangeKind = 'add' | 'make_default';
export type WalletChangeStatus =
  'awaiting_confirmation' | 'cooling_down' | 'applied' | 'canceled' | 'expired';

export interface WalletChangesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  wallet_id: string;
  kind: WalletChangeKind;
  make_default: boolean;
  status: WalletChangeStatus;
  confirm_token_hash: string | null;
  confirm_expires_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  confirmed_by: string | null;
  effective_at: NullableTimestamp;
  applied_at: NullableTimestamp;
  canceled_at: NullableTimestamp;
  canceled_by: string | null;
  cancel_reason: string | null;
  requested_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WalletSettingsTable {
  organization_id: string;
  cooldown_seconds: number;
  updated_by: string;
  updated_at: Timestamp;
}

export interface PayoutMinimumsTable {
  network: Network;
  environment: Environment;
  /** TRY minor units, decimal text. */
  amount: ColumnType<string, string | bigint, string | bigint>;
  updated_by: string;
  updated_at: Timestamp;
}

export type PayoutStatus = 'pending' | 'in_transit' | 'completed' | 'failed' | 'canceled';
export type PayoutRailName = 'sandbox_chain' | 'treasury';

export interface PayoutsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  /** TRY minor units debited, decimal text. */
  amount: ColumnType<string, string | bigint, never>;
  currency: 'TRY';
  /** USDT minor units (6 decimals) sent, decimal text. */
  payout_amount: ColumnType<string, string | bigint, never>;
  payout_currency: 'USDT';
  /** USDT per TRY, exact decimal text: the market rate less the spread. */
  rate: string;
  rate_source: string;
  rate_at: Timestamp;
  market_rate: string;
  spread_bps: number;
  /** TRY minor units of `amount` kept as FX revenue. */
  spread_amount: ColumnType<string, string | bigint, never>;
  network: Network;
  wallet_id: string;
  address: string;
  rail: PayoutRailName;
  status: PayoutStatus;
  automatic: boolean;
  tx_hash: string | null;
  /** A calendar date (YYYY-MM-DD); node-postgres and PGlite return `date` columns differently, so read it as text. */
  arrival_date: ColumnType<string | null, string | null | undefined, string | null>;
  failure_code: string | null;
  failure_message: string | null;
  description: string | null;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_by: string | null;
  /**
   * The `X-Idempotency-Key` of the request that made it (migration 0031), unique per organization and
   * environment; null without one, on automatic payouts, and once let go after the idempotency window.
   */
  idempotency_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** That request's body in canonical JSON, HMAC-SHA-256 (ADR 0054): another body is `idempotency_key_reuse`. */
  request_fingerprint: ColumnType<string | null, string | null | undefined, never>;
  submitted_at: NullableTimestamp;
  in_transit_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  canceled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  lease_token: string | null;
  parked_at: NullableTimestamp;
  last_error: string | null;
}

export interface SettlementBatchesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  /** 'YYYY-MM-DD'. */
  business_date: string;
  origin: 'schedule' | 'test_helper';
  cutoff: Timestamp;
  status: SettlementBatchStatus;
  gross: ColumnType<string, string | bigint, never>;
  fees: ColumnType<string, string | bigint, never>;
  refunds: ColumnType<string, string | bigint, never>;
  net: ColumnType<string, string | bigint, never>;
  item_count: number;
  reserve_held: ColumnType<string, string | bigint | undefined, never>;
  /** 'YYYY-MM-DD'. */
  reserve_release_date: string | null;
  reserve_released: ColumnType<string, string | bigint | undefined, never>;
  payout_id: string | null;
  carry_reason: CarryReason | null;
  hold_reason: string | null;
  rate: string | null;
  rate_source: string | null;
  rate_at: NullableTimestamp;
  payout_amount: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  payout_usdt: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  payout_attempts: Generated<number>;
  statement_seq: number | null;
  statement_hash: string | null;
  previous_hash: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type SettlementBatchStatus = 'released' | 'held' | 'paid_out' | 'carried';
/** Why a batch made no payout: its funds stay available for a later batch or a manual payout. */
export type CarryReason = 'no_default_wallet' | 'below_minimum' | 'manual_schedule' | 'nothing_available';
export type PayoutSchedule = 'daily' | 'manual';

export interface SettlementSettingsTable {
  organization_id: string;
  payout_schedule: ColumnType<PayoutSchedule, PayoutSchedule | undefined, PayoutSchedule>;
  reserve_bps: Generated<number>;
  reserve_days: Generated<number>;
  carry_notice_live: CarryReason | null;
  carry_notice_sandbox: CarryReason | null;
  updated_by: string;
  updated_at: Timestamp;
}

export interface SettlementReserveReleasesTable {
  batch_id: string;
  released_in: string;
  amount: ColumnType<string, string | bigint, never>;
  created_at: Timestamp;
}

/** Migration 0045: a holding batch's reserve taken for a dispute debt (docs/disputes.md, "The money"). */
export interface SettlementReserveRecoveriesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  batch_id: string;
  amount: ColumnType<string, string | bigint, never>;
  business_date: ColumnType<string, string, never>;
  created_at: Timestamp;
}

export interface ReconciliationRunsTable {
  id: string;
  environment: Environment;
  /** 'YYYY-MM-DD' (UTC). */
  report_date: string;
  origin: 'schedule' | 'operator';
  status: 'matched' | 'differences';
  acquirer_payments: number;
  acquirer_refunds: number;
  acquirer_net: BigintColumn;
  ledger_payments: number;
  ledger_refunds: number;
  ledger_net: BigintColumn;
  difference_count: number;
  run_by: string;
  created_at: Timestamp;
}

export type ReconciliationDifferenceKind =
  'missing_in_ledger' | 'missing_at_acquirer' | 'amount_mismatch' | 'timing';

/** What a reconciliation difference is about: `dispute_debit` and `dispute_reversal` since migration 0039. */
export type ReconciliationItem = 'payment' | 'refund' | 'dispute_debit' | 'dispute_reversal';

export interface ReconciliationDifferencesTable {
  run_id: string;
  position: number;
  kind: ReconciliationDifferenceKind;
  item: ReconciliationItem;
  provider_id: string | null;
  gateway_id: string | null;
  organization_id: string | null;
  acquirer_amount: ColumnType<string | null, string | bigint | null, never>;
  ledger_amount: ColumnType<string | null, string | bigint | null, never>;
  acquirer_at: NullableTimestamp;
  ledger_at: NullableTimestamp;
}

export interface FxSpreadsTable {
  environment: Environment;
  spread_bps: number;
  updated_by: string;
  updated_at: Timestamp;
}

/** The live rate source an operator chose (migration 0030); without a row, `ticker`. */
export interface FxRateSourcesTable {
  environment: 'live';
  source: 'ticker' | 'operator';
  reason: string;
  updated_by: string;
  updated_at: Timestamp;
}

export interface FxRatesTable {
  id: string;
  environment: Environment;
  rate: string;
  reason: string;
  entered_by: string;
  entered_at: Timestamp;
}

export interface BusinessClosuresTable {
  /** 'YYYY-MM-DD'. */
  business_date: string;
  reason: string;
  declared_by: string;
  created_at: Timestamp;
}

export interface SettlementItemsTable {
  id: string;
  batch_id: string;
  organization_id: string;
  environment: Environment;
  /** `dispute`: migration 0039, a dispute's entry (its source a movement id, or `<dispute>:<stage>`). */
  type: 'charge' | 'refund' | 'dispute' | 'recovery';
  source_id: string;
  charge_id: string;
  merchant_reference: string | null;
  amount: ColumnType<string, string | bigint, never>;
  fee: ColumnType<string, string | bigint, never>;
  net: ColumnType<string, string | bigint, never>;
  occurred_at: Timestamp;
  available_at: Timestamp;
  payout_id: string | null;
}

/** Migration 0039 (docs/decisions/0076-disputes.md). */
export type DisputeStatus =
  | 'warning_needs_response'
  | 'warning_under_review'
  | 'warning_closed'
  | 'needs_response'
  | 'under_review'
  | 'won'
  | 'lost';
export type DisputeStage = 'inquiry' | 'chargeback' | 'pre_arbitration';
export type DisputeReason =
  | 'fraudulent'
  | 'unrecognized'
  | 'product_not_received'
  | 'product_unacceptable'
  | 'subscription_canceled'
  | 'credit_not_processed'
  | 'duplicate'
  | 'general';
export type CardNetwork = 'visa' | 'mastercard' | 'troy' | 'unknown';
export type DisputeClosedBy = 'acceptance' | 'decision' | 'deadline' | 'refund';
type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** The merchant's evidence of one stage: text fields and file ids, staged until submitted. */
export interface DisputeEvidence {
  productDescription?: string;
  customerCommunication?: string;
  refundPolicy?: string;
  cancellationPolicy?: string;
  accessActivityLog?: string;
  deliveryProof?: string;
  uncategorizedText?: string;
  files?: string[];
}

/** A funds movement of a dispute, as the acquirer reported it. */
export interface DisputeMovement {
  id: string;
  type: 'funds_withdrawn' | 'funds_reinstated';
  amount: string;
  createdAt: string;
}

/** What was sent to the acquirer for a stage. */
export interface DisputeSubmission {
  stage: DisputeStage;
  evidence: DisputeEvidence;
  submittedAt: string;
}

export interface DisputesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  charge_id: string;
  provider: string;
  provider_dispute_id: string;
  amount: BigintColumn;
  currency: 'TRY';
  reason: DisputeReason;
  reason_code: string;
  network: CardNetwork;
  status: DisputeStatus;
  stage: DisputeStage;
  rank: number;
  evidence_due_by: NullableTimestamp;
  evidence: JsonColumn<DisputeEvidence>;
  evidence_submitted_at: NullableTimestamp;
  submissions: JsonColumn<DisputeSubmission[]>;
  /** Defaults (migration 0039): nothing withdrawn, reinstated or moved; not credit-processed. */
  amount_withdrawn: ColumnType<string, string | bigint | undefined, string | bigint>;
  amount_reinstated: ColumnType<string, string | bigint | undefined, string | bigint>;
  movements: JsonColumn<DisputeMovement[]>;
  credit_processed: ColumnType<boolean, boolean | undefined, boolean>;
  alert_id: string | null;
  closed_by: DisputeClosedBy | null;
  closed_at: NullableTimestamp;
  escalated_at: NullableTimestamp;
  provider_created_at: Timestamp;
  provider_updated_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type DisputeRow = Selectable<DisputesTable>;

export interface FraudWarningsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  charge_id: string;
  provider: string;
  provider_warning_id: string;
  reason: string;
  reason_code: string;
  network: CardNetwork;
  refund_id: string | null;
  provider_created_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type FraudWarningRow = Selectable<FraudWarningsTable>;

export type DisputeAlertStatus = 'open' | 'resolved' | 'expired';
export interface DisputeAlertsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  charge_id: string;
  provider: string;
  provider_alert_id: string;
  amount: BigintColumn;
  currency: 'TRY';
  reason: string;
  reason_code: string;
  network: CardNetwork;
  status: DisputeAlertStatus;
  rank: number;
  refund_by: Timestamp;
  refund_id: string | null;
  closed_at: NullableTimestamp;
  provider_created_at: Timestamp;
  provider_updated_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type DisputeAlertRow = Selectable<DisputeAlertsTable>;

export interface DisputeFeeSchedulesTable {
  organization_id: string;
  fee_minor: BigintColumn;
  fee_returned_on_win: boolean;
  updated_at: Timestamp;
}

/** Migration 0040: uploaded files (evidence), their bytes behind the files module's storage port. */
export type FilePurpose = 'dispute_evidence';
export type FileType = 'application/pdf' | 'image/png' | 'image/jpeg';
export interface FilesTable {
  id: string;
  organization_id: string;
  environment: Environment;
  purpose: FilePurpose;
  type: FileType;
  size: number;
  filename: string | null;
  sha256: string;
  /** The dispute whose evidence names it, once it does. */
  dispute_id: string | null;
  created_by_key_id: string | null;
  created_at: Timestamp;
}
export type FileRow = Selectable<FilesTable>;

/** The database storage of the files module (one row per file). */
export interface FileContentsTable {
  file_id: string;
  organization_id: string;
  environment: Environment;
  bytes: Uint8Array;
}

/** Migration 0043: auto-refund rules of alerts and fraud warnings, and what each rule did (issue 37 item 5). */
export type DisputeRefundRuleKind = 'dispute_alert' | 'fraud_warning';
export interface DisputeRefundRulesTable {
  organization_id: string;
  environment: Environment;
  kind: DisputeRefundRuleKind;
  enabled: boolean;
  max_amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  enabled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: string;
}
export type DisputeRefundRuleRow = Selectable<DisputeRefundRulesTable>;

export type DisputeAutoRefundOutcome = 'refunded' | 'skipped' | 'failed';
export interface DisputeAutoRefundsTable {
  id: string;
  organization_id: string;
  environment: Environment;
  kind: DisputeRefundRuleKind;
  charge_id: string;
  max_amount: ColumnType<string | null, string | bigint | null, string | bigint | null>;
  outcome: DisputeAutoRefundOutcome | null;
  refund_id: string | null;
  skip_reason: string | null;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  lease_token: string | null;
  parked_at: NullableTimestamp;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type DisputeAutoRefundRow = Selectable<DisputeAutoRefundsTable>;

/** Migration 0042: the platform's one row of dispute-ratio settings (docs/dispute-ratios.md). */
export interface DisputeRatioSettingsTable {
  id: number;
  count_fraud_and_dispute_once: boolean;
  levels: ColumnType<unknown, string, string>;
  updated_by: string;
  updated_at: Timestamp;
}

/** Migration 0044: how far one owner's closed days are summarised (ADR 0077, docs/dispute-ratios.md). */
export interface DisputeRatioSummariesTable {
  organization_id: string;
  environment: Environment;
  /** `YYYY-MM-DD`: the first summarised day, and the first counted live. */
  days_from: string;
  days_until: string;
  writes_before: Timestamp;
  refreshed_at: Timestamp;
}

/** Migration 0044: one closed day's ratio counts of one owner and scheme. */
export interface DisputeRatioDaysTable {
  organization_id: string;
  environment: Environment;
  day: string;
  scheme: 'visa' | 'mastercard' | 'troy';
  sales: number;
  chargebacks: number;
  fraud_warnings: number;
  fraud_warnings_also_disputed: number;
}

/** Migration 0046: the gateway's BIN table (docs/risk.md, "The BIN table"), keyed by a 6- to 8-digit prefix. */
export interface CardBinsTable {
  prefix: string;
  scheme: CardBinScheme;
  /** ISO 3166-1 alpha-2. */
  country: string;
  issuer: string | null;
  funding: 'credit' | 'debit' | 'prepaid';
  category: 'consumer' | 'commercial';
  programme: string | null;
  updated_at: Timestamp;
  updated_by: string;
}
export type CardBinScheme =
  | 'visa'
  | 'mastercard'
  | 'amex'
  | 'troy'
  | 'discover'
  | 'diners'
  | 'jcb'
  | 'unionpay'
  | 'maestro'
  | 'mir'
  | 'elo'
  | 'hiper'
  | 'hipercard'
  | 'naranja'
  | 'verve';
