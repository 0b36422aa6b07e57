-- One version number per brain work key (a cluster's hosts; an infra-env's unbound hosts), bumped by every write
-- to the key's host rows. A unit of work checks and bumps it in O(1) where it counted and summed the row versions of
-- every host of the key (a 1,000-host cluster: ~2 ms of PostgreSQL per commit), and the monitor compares it with its
-- cache instead of aggregating every host row of the fleet each second (75,000 hosts: ~185 ms a pass).
-- The brain bumps its key itself, once per commit (marking its transaction with rdv.brain_write); the triggers
-- bump for every other writer (a host deleted through the REST API, an infra-env or cluster deleted) and for any
-- host that moves to another key. Check-ins move no row version and bump nothing.
CREATE TABLE cluster_host_versions (
  cluster_id UUID PRIMARY KEY REFERENCES clusters(id) ON DELETE CASCADE,
  version BIGINT NOT NULL
);

CREATE TABLE unbound_host_versions (
  infra_env_id UUID PRIMARY KEY REFERENCES infra_envs(id) ON DELETE CASCADE,
  version BIGINT NOT NULL
);

-- A key gone with its cluster or infra-env has nothing to version (WHERE EXISTS: no row for a deleted one).
CREATE FUNCTION rdv_bump_host_key(cluster UUID, infra_env UUID) RETURNS VOID LANGUAGE sql AS $$
  INSERT INTO cluster_host_versions (cluster_id, version)
    SELECT cluster, 1 WHERE cluster IS NOT NULL AND EXISTS (SELECT 1 FROM clusters WHERE id = cluster)
    ON CONFLICT (cluster_id) DO UPDATE SET version = cluster_host_versions.version + 1;
  INSERT INTO unbound_host_versions (infra_env_id, version)
    SELECT infra_env, 1 WHERE cluster IS NULL AND EXISTS (SELECT 1 FROM infra_envs WHERE id = infra_env)
    ON CONFLICT (infra_env_id) DO UPDATE SET version = unbound_host_versions.version + 1;
$$;

CREATE FUNCTION rdv_hosts_key_changed() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM rdv_bump_host_key(OLD.cluster_id, OLD.infra_env_id);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.cluster_id IS DISTINCT FROM OLD.cluster_id) THEN
    PERFORM rdv_bump_host_key(NEW.cluster_id, NEW.infra_env_id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER hosts_key_version_insert AFTER INSERT ON hosts FOR EACH ROW
  WHEN (current_setting('rdv.brain_write', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION rdv_hosts_key_changed();
CREATE TRIGGER hosts_key_version_update AFTER UPDATE ON hosts FOR EACH ROW
  WHEN (NEW.cluster_id IS DISTINCT FROM OLD.cluster_id
    OR (NEW.row_version IS DISTINCT FROM OLD.row_version AND current_setting('rdv.brain_write', true) IS DISTINCT FROM 'on'))
  EXECUTE FUNCTION rdv_hosts_key_changed();
CREATE TRIGGER hosts_key_version_delete AFTER DELETE ON hosts FOR EACH ROW
  EXECUTE FUNCTION rdv_hosts_key_changed();
