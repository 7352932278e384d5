-- Issue 15 item 5 (spec section 1: customers, behind the `customers` feature flag). docs/customers.md.
-- A customer belongs to one organization and environment. Deleting one erases what identifies the person
-- (name, e-mail, phone, reference, ID number) and keeps the row, so the charges that name it still do.
CREATE TABLE customers (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  name             text,
  email            text,
  phone            text,
  reference        text,
  -- The ID number sealed with the configured encryption key (AES-256-GCM), never returned.
  id_number_enc    text,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by       text,
  created_at       timestamptz(3) NOT NULL,
  updated_at       timestamptz(3) NOT NULL,
  deleted_at       timestamptz(3),
  CONSTRAINT customers_erased_when_deleted CHECK (
    deleted_at IS NULL OR (name IS NULL AND email IS NULL AND phone IS NULL AND reference IS NULL
                           AND id_number_enc IS NULL)
  )
);
-- The list, newest first, and the search by e-mail (case-insensitive), of the customers not deleted.
CREATE INDEX customers_list_idx ON customers (organization_id, environment, created_at DESC, id DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX customers_email_idx ON customers (organization_id, environment, lower(email), created_at DESC, id DESC)
  WHERE deleted_at IS NULL AND email IS NOT NULL;

-- A charge may name its customer: the customer's details are copied onto the charge when it is created
-- (a receipt shows who paid then), and the charge keeps the customer's id.
ALTER TABLE charges ADD COLUMN customer_id text REFERENCES customers (id);
CREATE INDEX charges_customer_idx ON charges (customer_id, created_at DESC, id DESC)
  WHERE customer_id IS NOT NULL;
