-- Infra-envs the user deleted, kept for a while: their agents' tokens still verify (they are signed, not stored), so
-- every instance's gateway reads this to answer them 404 at registration, as upstream does, instead of accepting
-- hosts for an infra-env that is gone. Filled by a trigger so every way of deleting one is seen.
CREATE TABLE deleted_infra_envs (
  id UUID PRIMARY KEY,
  deleted_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX deleted_infra_envs_deleted_at ON deleted_infra_envs (deleted_at);

CREATE FUNCTION rdv_infra_env_deleted() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO deleted_infra_envs (id) SELECT id FROM old_infra_envs ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

CREATE TRIGGER infra_envs_deleted AFTER DELETE ON infra_envs REFERENCING OLD TABLE AS old_infra_envs
  FOR EACH STATEMENT EXECUTE FUNCTION rdv_infra_env_deleted();
