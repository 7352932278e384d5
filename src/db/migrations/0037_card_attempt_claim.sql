-- A card is sent to the acquirer once (docs/decisions/0065-card-attempt-claim.md). The checkout claims a
-- card attempt before it calls the acquirer: one guarded update counts the attempt (card_attempts) and
-- sets this lease, and only a charge with no live lease can be claimed, so a second submission of the
-- form while the first is at the acquirer sends nothing and is shown "payment in progress". The lease
-- ends when the acquirer's answer is applied (in the same transaction); a lease past its time is one a
-- crashed process left, and the next page view reads the payment back before a card is taken again.
-- Nullable and without a default: the releases before this one never read or write it.
ALTER TABLE charges ADD COLUMN card_attempt_claimed_until timestamptz;
