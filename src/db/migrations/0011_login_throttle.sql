-- Login throttling (issue 11 item 6) replaces the account-wide lockout: failed logins are counted per
-- (realm, account e-mail, client address) and per (realm, client address), with a growing wait.
-- `email` is '' on the per-address row. Shared by every process through the database.

CREATE TABLE login_throttle (
  realm          text NOT NULL CHECK (realm IN ('dashboard', 'operator')),
  email          text NOT NULL,
  address        text NOT NULL,
  failures       integer NOT NULL CHECK (failures > 0),
  blocked_until  timestamptz(3),
  updated_at     timestamptz(3) NOT NULL,
  PRIMARY KEY (realm, email, address)
);

-- The purge of counters nobody has failed on for a day.
CREATE INDEX login_throttle_updated_at_idx ON login_throttle (updated_at);
