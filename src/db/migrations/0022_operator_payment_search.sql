-- Issue 15 item 7: the operator console's payment search across every organization. A charge id is the
-- primary key; the per-organization indexes (0004, 0020) lead with organization_id and cannot serve a
-- search that names no organization, so each other kind gets its own index, newest first, which the
-- bounded search (at most 51 rows) reads without sorting:
-- - a merchant reference (exact);
-- - the customer's e-mail (exact, case-insensitive), only rows that have one;
-- - the card's last four digits as the charge records them (its last card attempt), only card charges.
-- IF NOT EXISTS: on a large table an operator may build them first with CREATE INDEX CONCURRENTLY (same
-- names and definitions); this transaction then does not hold writes to charges while it builds them.
CREATE INDEX IF NOT EXISTS charges_reference_search_idx ON charges (merchant_reference, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS charges_email_search_idx ON charges (lower(customer_email), created_at DESC, id DESC)
  WHERE customer_email IS NOT NULL;
CREATE INDEX IF NOT EXISTS charges_last4_search_idx ON charges (card_last4, created_at DESC, id DESC)
  WHERE card_last4 IS NOT NULL;
