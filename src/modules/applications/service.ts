import type { Kdb } from '../../db/database.js';
import { ApiError } from '../../http/errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { insertApplication } from './repository.js';
import type { ApplicationCreate, ApplicationCreated } from './schemas.js';

export interface ApplicationService {
  submit(input: ApplicationCreate, context: { ip: string | undefined }): Promise<ApplicationCreated>;
}

export function createApplicationService(deps: { db: Kdb; clock: Clock }): ApplicationService {
  return {
    async submit(input, { ip }) {
      const verticalOther = presentOrNull(input.verticalOther);
      if (input.vertical !== 'other' && verticalOther !== null) {
        throw ApiError.validation([
          {
            path: 'verticalOther',
            in: 'body',
            code: 'invalid_value',
            message: 'is only allowed when vertical is "other"',
          },
        ]);
      }
      const now = deps.clock.now();
      const row = await insertApplication(deps.db, {
        id: newId('app', now),
        status: 'NEW',
        company_name: input.companyName,
        jurisdiction: input.jurisdiction,
        vertical: input.vertical,
        vertical_other: verticalOther,
        monthly_volume_usd: BigInt(input.monthlyVolumeUSD),
        current_acquirer: presentOrNull(input.currentAcquirer),
        why_switching: presentOrNull(input.whySwitching),
        contact_name: input.contactName,
        contact_email: input.contactEmail,
        telegram: presentOrNull(input.telegram),
        submitted_ip: ip ?? null,
        created_at: now,
        updated_at: now,
      });
      return { id: row.id, status: 'NEW', createdAt: row.created_at.toISOString() };
    },
  };
}

function presentOrNull(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}
