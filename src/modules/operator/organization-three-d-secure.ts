import { Type } from 'typebox';
import { ok } from '../../shared/result.js';
import type { OrganizationAdminService } from '../organizations/service.js';
import type { Actor, Organization } from '../organizations/types.js';
import { withReason, type Answer } from './command-input.js';
import { OrganizationViewSchema, ReasonBodySchema, ReasonFormSchema, organizationView } from './schemas.js';

// 3-D Secure required on every card payment of an organization (issue 37 item 6): one of the operator's
// answers to a chargeback ratio near a card scheme's threshold, beside a higher reserve and a freeze.
// The checkout reads it at each card attempt; the change is audited with its reason.

/** `PUT /operator/v1/organizations/{id}/three-d-secure`. */
export const ThreeDSecureBodySchema = Type.Object(
  {
    required: Type.Boolean({ description: 'Whether every card payment goes through 3-D Secure.' }),
    reason: ReasonBodySchema.properties.reason,
  },
  { additionalProperties: false },
);

/** The console's form: `required` as text, with the reason and the session's `_csrf` token. */
export const ThreeDSecureFormSchema = Type.Object(
  { ...ReasonFormSchema.properties, required: Type.Enum(['true', 'false']) },
  { additionalProperties: false },
);

/** The organization as the operator API shows it, with its 3-D Secure setting. */
export const OrganizationThreeDSecureViewSchema = Type.Object({
  ...OrganizationViewSchema.properties,
  threeDSecureRequired: Type.Boolean({
    description:
      'Every card payment of the organization goes through 3-D Secure (the checkout asks the acquirer ' +
      'for the challenge from the next card attempt on).',
  }),
});

export function organizationThreeDSecureView(organization: Organization) {
  return { ...organizationView(organization), threeDSecureRequired: organization.threeDSecureRequired };
}

/** Requires 3-D Secure on every card payment of the organization, or stops requiring it: audited. */
export const setThreeDSecureRequired = (
  { organizations }: { organizations: Pick<OrganizationAdminService, 'setThreeDSecureRequired'> },
  id: string,
  required: boolean,
  reason: string,
  by: Actor,
): Answer<ReturnType<typeof organizationThreeDSecureView>> =>
  withReason(reason, async (trimmed) => {
    const changed = await organizations.setThreeDSecureRequired(id, required, trimmed, by);
    return changed.ok ? ok(organizationThreeDSecureView(changed.value)) : changed;
  });
