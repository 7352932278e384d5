-- Issue 16 item 5 (decision 0038): the auth epoch is no longer read by every request. An instance trusts
-- a reading for a lease (lease_ms) and reads again only when it ran out; every transaction that moves
-- the epoch waits out one lease before it commits, so when a revocation (or any other change that moves
-- the epoch) returns, no instance can still trust a reading from before it. Writers need not know:
-- the trigger does the waiting, for the API, the consoles, the CLI and a SQL script alike.
--
-- The proof needs the readers to tell a settled epoch from one a writer is about to move: a writer holds
-- an exclusive transaction-level advisory lock from before its bump until its commit, and a reading
-- takes the shared lock (without waiting) before it reads the version. A reading that got the lock saw
-- every change that committed before it, and any later writer commits a whole lease after it; a reading
-- that did not get the lock is used for the request that asked and never trusted beyond it.

-- 0 turns the lease off (a reading per request, the cost before this migration). Raising it is safe at
-- any time; after lowering it, a reading granted under the old value can be trusted until it runs out.
ALTER TABLE api_key_auth_epoch
  ADD COLUMN lease_ms integer NOT NULL DEFAULT 100 CHECK (lease_ms BETWEEN 0 AND 1000);

-- 7343112038: arbitrary but fixed, the advisory lock of "the auth epoch is moving" (bigint form).
CREATE OR REPLACE FUNCTION api_key_auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lease integer;
BEGIN
  PERFORM pg_advisory_xact_lock(7343112038);
  UPDATE api_key_auth_epoch SET version = version + 1 WHERE id RETURNING lease_ms INTO lease;
  -- Once per transaction, however many rows it changes. The setting is transaction-local (nothing
  -- outlives the transaction, as a transaction-pooling PgBouncer requires).
  IF current_setting('gateway.auth_epoch_waited', true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('gateway.auth_epoch_waited', 'on', true);
    PERFORM pg_sleep(lease / 1000.0);
  END IF;
  RETURN NULL;
END
$$;

-- The reading of the authenticator, in one round trip. Each statement of a volatile PL/pgSQL function
-- takes a new snapshot (READ COMMITTED), so the version is read after the lock was tried: called on its
-- own (autocommit), never inside a REPEATABLE READ transaction. lease_ms is 0 when a writer holds the
-- lock: the version is then good for the request that asked only.
CREATE FUNCTION api_key_auth_epoch_read(OUT version bigint, OUT lease_ms integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  settled boolean;
BEGIN
  settled := pg_try_advisory_xact_lock_shared(7343112038);
  SELECT e.version, e.lease_ms INTO version, lease_ms FROM api_key_auth_epoch e WHERE e.id;
  IF NOT settled THEN
    lease_ms := 0;
  END IF;
END
$$;
