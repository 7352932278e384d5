import { err, ok, type Result } from '../../shared/result.js';
import type { Owner } from '../../shared/owner.js';
import { acquirerOf, applyAnswer, ask, readBack, rejectedBy, type AnswerDeps } from './answer.js';
import type { DisputeError } from './errors.js';
import * as disputes from './repository.js';
import { disputeChargeOf, disputeView, type DisputeView } from './views.js';

/**
 * The merchant accepts a dispute that needs a response (issue 37 item 4): the acquirer closes it `lost`,
 * and that answer is applied. Accepting an accepted dispute answers it unchanged, as the acquirer does.
 */
export async function acceptDispute(
  deps: AnswerDeps,
  owner: Owner,
  id: string,
): Promise<Result<DisputeView, DisputeError>> {
  const row = await disputes.findDispute(deps.db, owner, id);
  if (!row) return err({ code: 'dispute_not_found' });
  if (row.status === 'lost' && row.closed_by === 'acceptance') {
    const charge = await deps.charges.findVisible(owner, row.charge_id);
    if (!charge) return err({ code: 'dispute_not_found' });
    return ok(disputeView(row, disputeChargeOf(charge)));
  }
  if (row.status !== 'needs_response')
    return err({ code: 'not_answerable', status: row.status, action: 'accept' });
  const acquirer = acquirerOf(deps, row);
  if (!acquirer.ok) return acquirer;
  const accepted = await ask(() => acquirer.value.acceptDispute(row.provider_dispute_id));
  if (!accepted.ok) return accepted;
  if ('dispute' in accepted.value) return ok(await applyAnswer(deps, owner, row, accepted.value.dispute));
  // The acquirer knows better (a deadline passed there): its dispute is applied, and the refusal told.
  if (accepted.value.refused.providerCode !== 'invalid_state') return err(rejectedBy(accepted.value.refused));
  const read = await readBack(acquirer.value, row);
  if (!read.ok) return read;
  const view = await applyAnswer(deps, owner, row, read.value);
  return err({ code: 'not_answerable', status: view.status, action: 'accept' });
}
