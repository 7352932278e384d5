import type { FeatureFlag, KycStatus, PaymentMethod } from '../../db/schema.js';
import { ok, type Result } from '../../shared/result.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import type { Actor, Organization } from '../organizations/types.js';
import {
  BASIS_POINTS_MAX,
  FIXED_FEE_MAX,
  invalid,
  outOfRange,
  RATE_LIMIT_MAX,
  withReason,
  type Answer,
} from './command-input.js';
import type { OperatorError } from './errors.js';
import { organizationView } from './schemas.js';

type OrganizationView = ReturnType<typeof organizationView>;
type Organizations = { organizations: OrganizationAdminService };

async function organizationAnswer(
  change: Promise<Result<Organization, OperatorError>>,
): Answer<OrganizationView> {
  const changed = await change;
  return changed.ok ? ok(organizationView(changed.value)) : changed;
}

export const setKycStatus = ({ organizations }: Organizations, id: string, status: KycStatus, by: Actor) =>
  organizationAnswer(organizations.setKycStatus(id, status, by));

export async function setFee(
  { organizations }: Organizations,
  id: string,
  fee: { paymentMethod: PaymentMethod; basisPoints: number; fixedMinor: bigint },
  by: Actor,
): Answer<OrganizationView> {
  const refused =
    outOfRange(fee.basisPoints, 'basisPoints', BASIS_POINTS_MAX) ??
    (fee.fixedMinor < 0n || fee.fixedMinor > FIXED_FEE_MAX
      ? invalid('fixedMinor', `must be a whole number from 0 to ${FIXED_FEE_MAX}`)
      : undefined);
  if (refused) return refused;
  const fees = await organizations.setFee(id, fee, by);
  if (!fees.ok) return fees;
  const organization = await organizations.get(id);
  return organization.ok ? ok(organizationView(organization.value, fees.value)) : organization;
}

export const setFeatureFlag = (
  { organizations }: Organizations,
  id: string,
  flag: FeatureFlag,
  enabled: boolean,
  by: Actor,
) => organizationAnswer(organizations.setFeatureFlag(id, flag, enabled, by));

export async function setRateLimits(
  { organizations }: Organizations,
  id: string,
  limits: { live: number | null; sandbox: number | null },
  by: Actor,
): Answer<OrganizationView> {
  for (const [name, value] of Object.entries(limits)) {
    const refused = value === null ? undefined : outOfRange(value, name, RATE_LIMIT_MAX, 1);
    if (refused) return refused;
  }
  return organizationAnswer(organizations.setRateLimits(id, limits, by));
}

export const freeze = ({ organizations }: Organizations, id: string, reason: string, by: Actor) =>
  withReason(reason, (trimmed) => organizationAnswer(organizations.freeze(id, trimmed, by)));

export const unfreeze = ({ organizations }: Organizations, id: string, by: Actor) =>
  organizationAnswer(organizations.unfreeze(id, by));
