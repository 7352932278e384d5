import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

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
}

export interface SchemaMigrationsTable {
  name: string;
  checksum: string;
  applied_at: Generated<Date>;
}

export interface DB {
  applications: ApplicationsTable;
  idempotency_keys: IdempotencyKeysTable;
  schema_migrations: SchemaMigrationsTable;
}

export type ApplicationRow = Selectable<ApplicationsTable>;
export type NewApplicationRow = Insertable<ApplicationsTable>;
