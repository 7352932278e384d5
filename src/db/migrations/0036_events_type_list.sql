-- GET /v1/events?type= (the events feed of one kind, newest first): the merchant's list index (0005) does
-- not hold the kind, so a page of a rare kind read every event of the merchant, or of the table, to find
-- its rows. This index serves that page in the feed's order.
-- IF NOT EXISTS: on a large table an operator may build it first with CREATE INDEX CONCURRENTLY (same name
-- and definition); this transaction then does not hold writes to events while it builds it.
CREATE INDEX IF NOT EXISTS events_type_list_idx
  ON events (organization_id, environment, type, created_at DESC, id DESC);
