-- 3-D Secure required on every card payment of an organization (issue 37 item 6): an operator's answer to
-- a chargeback ratio coming close to a card scheme's threshold, set and cleared through an audited
-- organization change. The checkout reads it when it sends a card to the acquirer, so it applies from the
-- next card attempt on. It is not part of an API key's cached authentication (the checkout reads it
-- fresh), so it stays out of organizations_auth_epoch_update (migration 0003).
ALTER TABLE organizations ADD COLUMN require_three_d_secure boolean NOT NULL DEFAULT false;
