import type { Trx } from '../db/database.js';
import type { Environment, OperatorAlertKind } from '../db/schema.js';

/** A money problem an operator must look at, as the module that found it describes it. */
export interface NewOperatorAlert {
  kind: OperatorAlertKind;
  organizationId: string | null;
  environment: Environment | null;
  /** What it is about: `<provider>:<notification id>` for a notification, the refund id for a debt. */
  subjectId: string;
  chargeId?: string | null;
  /** One sentence for the console; never a secret or card data. */
  message: string;
  details: Record<string, unknown>;
}

/**
 * The port through which any module raises an operator alert (docs/decisions/0013 and 0014): inside the
 * transaction that found the problem, once per kind and subject. The operator module implements it
 * (`src/modules/operator/alerts.ts`); modules depend on this, never on the operator module.
 */
export interface AlertRaiser {
  /** True when this call raised it; false when it had been raised before. */
  raise(trx: Trx, alert: NewOperatorAlert): Promise<boolean>;
}
