-- The dashboard's overview (issue 15 item 3) reads an owner's refunds by day; without this index that is a
-- scan of every merchant's refunds.
CREATE INDEX refunds_owner_created_idx ON refunds (organization_id, environment, created_at);
