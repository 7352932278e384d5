// The bodies of API answers that several test files read, as the tests type them.

/** A row of `GET /v1/balance`. */
export interface BalanceRow {
  currency: string;
  pending: string;
  available: string;
  inTransit: string;
  debt: string;
}

/** An operator alert of `GET /operator/v1/alerts`. */
export interface AlertBody {
  id: string;
  kind: string;
  organizationId: string | null;
  environment: string | null;
  subjectId: string;
  chargeId: string | null;
  message: string;
  details: Record<string, unknown>;
  acknowledgedAt: string | null;
}
