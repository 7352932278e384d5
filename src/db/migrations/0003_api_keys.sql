-- API-key authentication (issue 4): what lets every instance cache key lookups yet refuse a revoked key
-- on the very next request, and the marker of the audit-trail retention purge.

-- One row whose version moves, in the transaction of the change, whenever a cached key lookup could
-- become wrong: a key revoked or otherwise changed, or its organization's KYC status, freeze, feature
-- flags or rate limits changed. Every request reads it (a one-row read, coalesced per instance) and
-- trusts a cached lookup only when it was made under the same version. The bump is transactional, so
-- no instance can see the new version before the change itself is visible.
CREATE TABLE api_key_auth_epoch (
  id       boolean PRIMARY KEY DEFAULT true CHECK (id),
  version  bigint NOT NULL
);

INSERT INTO api_key_auth_epoch (id, version) VALUES (true, 0);

CREATE FUNCTION api_key_auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE api_key_auth_epoch SET version = version + 1 WHERE id;
  RETURN NULL;
END
$$;

-- last_used_at and the retention marker change often or harmlessly; they never move the epoch.
CREATE TRIGGER api_keys_auth_epoch_update AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN ((OLD.revoked_at, OLD.expires_at, OLD.scopes, OLD.allowed_ips, OLD.environment, OLD.organization_id,
         OLD.secret_hash)
        IS DISTINCT FROM
        (NEW.revoked_at, NEW.expires_at, NEW.scopes, NEW.allowed_ips, NEW.environment, NEW.organization_id,
         NEW.secret_hash))
  EXECUTE FUNCTION api_key_auth_epoch_bump();

CREATE TRIGGER api_keys_auth_epoch_delete AFTER DELETE ON api_keys FOR EACH ROW
  EXECUTE FUNCTION api_key_auth_epoch_bump();

CREATE TRIGGER organizations_auth_epoch_update AFTER UPDATE ON organizations FOR EACH ROW
  WHEN ((OLD.kyc_status, OLD.frozen_at, OLD.feature_flags, OLD.rate_limit_live, OLD.rate_limit_sandbox)
        IS DISTINCT FROM
        (NEW.kyc_status, NEW.frozen_at, NEW.feature_flags, NEW.rate_limit_live, NEW.rate_limit_sandbox))
  EXECUTE FUNCTION api_key_auth_epoch_bump();

CREATE TRIGGER organizations_auth_epoch_delete AFTER DELETE ON organizations FOR EACH ROW
  EXECUTE FUNCTION api_key_auth_epoch_bump();

-- Spec 5.8 and product decision 11: a revoked key's audit trail is kept 30 days, then purged once.
ALTER TABLE api_keys ADD COLUMN audit_purged_at timestamptz(3);

CREATE INDEX api_keys_audit_retention_idx ON api_keys (revoked_at)
  WHERE revoked_at IS NOT NULL AND audit_purged_at IS NULL;

-- The purge finds what a key did by its actor name (`key:<id>`).
CREATE INDEX audit_log_actor_idx ON audit_log (actor, created_at DESC);
