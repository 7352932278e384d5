-- Uploaded files (issue 37 item 4, docs/files.md): a dispute's evidence, PDF, PNG or JPEG as its bytes
-- prove (never its name or declared type), at most 5 MiB each. The metadata row and the bytes are written
-- in one transaction; the bytes sit behind the files module's storage port, whose default keeps them in
-- `file_contents` (shared by every instance). Both tables are keyed by organization_id and environment.
CREATE TABLE files (
  id                 text PRIMARY KEY,
  organization_id    text NOT NULL REFERENCES organizations (id),
  environment        text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  purpose            text NOT NULL CHECK (purpose IN ('dispute_evidence')),
  type               text NOT NULL CHECK (type IN ('application/pdf', 'image/png', 'image/jpeg')),
  size               integer NOT NULL CHECK (size > 0),
  filename           text CHECK (char_length(filename) BETWEEN 1 AND 255),
  sha256             text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  -- The dispute whose evidence names the file, once it does (a file serves one dispute). No foreign key:
  -- disputes sit above files (the disputes module uses this one), and it sets the column in the same
  -- transaction that records the evidence.
  dispute_id         text,
  created_by_key_id  text,
  created_at         timestamptz(3) NOT NULL
);
CREATE INDEX files_list_idx ON files (organization_id, environment, created_at DESC, id DESC);
CREATE INDEX files_dispute_idx ON files (dispute_id) WHERE dispute_id IS NOT NULL;

-- The database storage of the port: one row per file, deleted with it.
CREATE TABLE file_contents (
  file_id          text PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  organization_id  text NOT NULL REFERENCES organizations (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'live')),
  bytes            bytea NOT NULL CHECK (octet_length(bytes) > 0)
);
