import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateThrough, readMigrations } from '../db/migrator.js';
import type { FeatureFlag, KycStatus, StaffRole } from '../db/schema.js';
import { toApiError } from '../http/errors.js';
import { createLogDestination, createLogger } from '../logger.js';
import type { Actor } from '../modules/organizations/types.js';
import { valueOf } from '../modules/operator/errors.js';
import { RECONCILIATION_ERRORS } from '../modules/operator/reconciliation-errors.js';
import { HELD_REFUND_ERRORS } from '../modules/refunds/errors.js';
import { heldRefundDecision } from '../modules/refunds/service.js';
import { applicationView } from '../modules/operator/schemas.js';
import type { SettlementCommandError } from '../modules/settlement/batch-types.js';
import { SETTLEMENT_ERRORS } from '../modules/settlement/errors.js';
import { migrationsDir } from '../paths.js';
import { createDetachedServices } from '../services.js';
import { systemClock } from '../shared/clock.js';
import type { Result } from '../shared/result.js';
import { generatedPassword, UsageError, type Backend } from './operator-backend.js';

/**
 * The operator CLI's backend on a database it opens itself (DATABASE_URL, or the embedded database of
 * DATA_DIR), through the same services as the console and the operator API. `src/cli/operator.ts` loads
 * this module only when it opens a database, so its usage errors and its calls through a running
 * gateway's operator API do not load the gateway's modules.
 */
export async function directBackend(config: Config): Promise<Backend> {
  const database: Database = await openDatabase({
    databaseUrl: config.databaseUrl,
    poolSize: 2,
    dataDir: config.dataDir,
  });
  await migrateThrough(database, config.databaseMigrationUrl, readMigrations(migrationsDir));
  const logger = createLogger({ level: 'warn', destination: createLogDestination(process.stderr) });
  // The CLI runs no jobs; payouts it reads need no rail.
  const services = createDetachedServices({ database, clock: systemClock, config, logger });
  // The same operator commands as the console and the operator API: no second backend.
  const { operator, underwriting, mailer } = services;
  const by: Actor = { actor: 'cli' };
  return {
    async call(command, input) {
      const id = String(input.id ?? '');
      switch (command) {
        case 'create-staff': {
          const password = (input.password as string | undefined) ?? generatedPassword(String(input.email));
          const created = valueOf(
            await operator.createStaff(
              {
                email: String(input.email),
                name: String(input.name),
                role: input.role as StaffRole,
                password,
              },
              by,
            ),
          );
          return { ...created, ...(input.password === undefined ? { password } : {}) };
        }
        case 'set-staff-password': {
          const password = (input.password as string | undefined) ?? generatedPassword(String(input.email));
          const { staff, sessionsEnded } = valueOf(
            await operator.setStaffPassword({ email: String(input.email), password }, by),
          );
          return {
            id: staff.id,
            email: staff.email,
            sessionsEnded,
            ...(input.password === undefined ? { password } : {}),
          };
        }
        case 'list-applications': {
          const listed = await underwriting.listApplications({
            limit: Number(input.limit),
            ...(input.status ? { status: input.status as 'NEW' } : {}),
          });
          // No cursor is passed, so a refused cursor cannot happen here.
          if (!listed.ok) throw new Error(`listing applications failed: ${listed.error.code}`);
          const page = listed.value;
          return { data: page.data.map(applicationView), nextCursor: page.nextCursor };
        }
        case 'approve': {
          const approved = valueOf(await operator.approveApplication(id, by));
          await mailer.deliverDue();
          return approved;
        }
        case 'reject': {
          const rejected = valueOf(await operator.rejectApplication(id, String(input.reason), by));
          await mailer.deliverDue();
          return rejected;
        }
        case 'set-kyc':
          return valueOf(await operator.setKycStatus(id, input.kycStatus as KycStatus, by));
        case 'set-flag':
          return valueOf(
            await operator.setFeatureFlag(id, input.flag as FeatureFlag, Boolean(input.enabled), by),
          );
        case 'demo-merchant':
          return valueOf(
            await operator.createDemoMerchant(
              {
                ...(input.kycStatus ? { kycStatus: input.kycStatus as KycStatus } : {}),
                ...(input.flags ? { flags: input.flags as FeatureFlag[] } : {}),
                ...(input.email ? { email: String(input.email) } : {}),
                ...(input.companyName ? { companyName: String(input.companyName) } : {}),
              },
              by,
            ),
          );
        case 'settle':
          return settlementValueOf(await services.settlementBatches.runDate(String(input.businessDate), by));
        case 'settle-refund': {
          const decision = heldRefundDecision(
            input as {
              outcome: 'succeeded' | 'failed';
              reason: string;
              providerRefundId?: string;
              amount?: string;
            },
          );
          const settled = await services.refunds.settleHeld(id, decision, by);
          if (settled.ok) return settled.value;
          throw toApiError(HELD_REFUND_ERRORS, settled.error);
        }
        case 'reconcile': {
          const result = await services.reconciliation.run(
            input.environment as 'sandbox' | 'live',
            String(input.reportDate),
            { ...by, origin: 'operator' },
          );
          if (result.ok) return result.value;
          throw toApiError(RECONCILIATION_ERRORS, result.error);
        }
        default:
          throw new UsageError(`unknown command ${command}`);
      }
    },
    close: () => database.close(),
  };
}

function settlementValueOf<T>(result: Result<T, SettlementCommandError>): T {
  if (result.ok) return result.value;
  throw toApiError(SETTLEMENT_ERRORS, result.error);
}
