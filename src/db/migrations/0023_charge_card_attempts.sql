-- Issue 15 item 1: the charge page's timeline shows every card attempt of the hosted checkout (its
-- outcome, the card's brand and last four, a 3-D Secure challenge), not only the count and the last card.
-- One row per attempt the checkout counted (charges.card_attempts), numbered from 1; written by the
-- charges module after the acquirer answered. Never a card number: the last four digits at most.
CREATE TABLE charge_card_attempts (
  charge_id text NOT NULL REFERENCES charges (id),
  number integer NOT NULL CHECK (number >= 1),
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'declined', 'challenge', 'error')),
  failure_code text,
  card_brand text,
  card_last4 text CHECK (card_last4 ~ '^[0-9]{4}$'),
  attempted_at timestamptz NOT NULL,
  PRIMARY KEY (charge_id, number)
);
