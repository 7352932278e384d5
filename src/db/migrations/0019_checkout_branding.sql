-- Issue 15 item 6: the checkout shows the merchant. docs/checkout.md ("The merchant's branding").
-- The name the customer sees is the organization's trading name, set in the dashboard; until then it is
-- the company name of the application. A row written without one (underwriting did, before this) gets
-- the company name, so every writer of organizations keeps working.
ALTER TABLE organizations
  ADD COLUMN display_name text,
  -- The checkout's brand colour, #rrggbb in lower case; NULL is the gateway's own colour. The contrast
  -- rule (WCAG AA against white) is the organizations module's: a CHECK cannot compute it.
  ADD COLUMN brand_color text CHECK (brand_color ~ '^#[0-9a-f]{6}$');

UPDATE organizations SET display_name = name;

ALTER TABLE organizations
  ALTER COLUMN display_name SET NOT NULL,
  ADD CONSTRAINT organizations_display_name_length CHECK (char_length(display_name) BETWEEN 1 AND 200);

CREATE FUNCTION organizations_default_display_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.display_name IS NULL THEN
    NEW.display_name := NEW.name;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER organizations_default_display_name BEFORE INSERT ON organizations FOR EACH ROW
  EXECUTE FUNCTION organizations_default_display_name();

-- One logo per organization, checked by its magic bytes (PNG, JPEG or WebP; never SVG) and served from
-- the checkout origin by its content hash: /checkout/logos/<sha256>.<png|jpg|webp>.
CREATE TABLE organization_logos (
  organization_id  text PRIMARY KEY REFERENCES organizations (id),
  sha256           text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content_type     text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  bytes            bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 262144),
  created_at       timestamptz(3) NOT NULL
);

CREATE INDEX organization_logos_sha256_idx ON organization_logos (sha256);
