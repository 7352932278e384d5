-- Issue 15 item 1: the dashboard's Payments list filters and sorts an organization's charges of one
-- environment. Newest and oldest first use charges_list_idx (0004) forwards and backwards, a merchant
-- reference its unique index (0004); these serve the other common lists at 100k charges per organization:
-- by amount, by status newest first, and by the customer's e-mail (case-insensitive, exact).
CREATE INDEX charges_amount_idx ON charges (organization_id, environment, amount DESC, id DESC);
CREATE INDEX charges_status_list_idx ON charges (organization_id, environment, status, created_at DESC, id DESC);
CREATE INDEX charges_customer_email_idx
  ON charges (organization_id, environment, lower(customer_email), created_at DESC, id DESC)
  WHERE customer_email IS NOT NULL;
