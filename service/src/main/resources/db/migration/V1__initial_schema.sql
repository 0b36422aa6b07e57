-- Tenants own clusters and infra-envs; hosts and events hang off them.
-- Documents upstream stores as JSON (inventory, validations, connectivity, progress, user specs) are JSONB.
-- row_version is bumped on every write: a writer that read version N updates "WHERE row_version = N",
-- so a stale writer (e.g. after a Kafka rebalance) changes nothing.

CREATE TABLE api_tokens (
  token_hash   TEXT PRIMARY KEY,          -- sha-256 hex of the bearer token; the token itself is never stored
  tenant       TEXT NOT NULL,
  name         TEXT NOT NULL,
  is_admin     BOOLEAN NOT NULL DEFAULT FALSE,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_tenant ON api_tokens (tenant);

CREATE TABLE clusters (
  id                    UUID PRIMARY KEY,
  tenant                TEXT NOT NULL,
  name                  TEXT NOT NULL,
  openshift_version     TEXT NOT NULL,
  status                TEXT NOT NULL,
  status_info           TEXT NOT NULL,
  status_updated_at     TIMESTAMPTZ NOT NULL,
  spec                  JSONB NOT NULL,       -- user-settable fields, as upstream names them
  pull_secret           TEXT NOT NULL,
  validations_info      JSONB,
  progress              JSONB,
  install_started_at    TIMESTAMPTZ,
  install_completed_at  TIMESTAMPTZ,
  row_version           BIGINT NOT NULL DEFAULT 1,
  created_at            TIMESTAMPTZ NOT NULL,
  updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX clusters_tenant ON clusters (tenant, created_at);

CREATE TABLE infra_envs (
  id                    UUID PRIMARY KEY,
  tenant                TEXT NOT NULL,
  cluster_id            UUID REFERENCES clusters (id) ON DELETE SET NULL,
  name                  TEXT NOT NULL,
  spec                  JSONB NOT NULL,
  pull_secret           TEXT NOT NULL,
  row_version           BIGINT NOT NULL DEFAULT 1,
  created_at            TIMESTAMPTZ NOT NULL,
  updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX infra_envs_tenant ON infra_envs (tenant, created_at);
CREATE INDEX infra_envs_cluster ON infra_envs (cluster_id);

CREATE TABLE hosts (
  id                        UUID NOT NULL,
  infra_env_id              UUID NOT NULL REFERENCES infra_envs (id) ON DELETE CASCADE,
  cluster_id                UUID REFERENCES clusters (id) ON DELETE SET NULL,
  status                    TEXT NOT NULL,
  status_info               TEXT NOT NULL,
  status_updated_at         TIMESTAMPTZ NOT NULL,
  role                      TEXT NOT NULL DEFAULT 'auto-assign',
  suggested_role            TEXT,
  bootstrap                 BOOLEAN NOT NULL DEFAULT FALSE,
  requested_hostname        TEXT,
  installation_disk_id      TEXT,
  installation_disk_path    TEXT,
  discovery_agent_version   TEXT,
  inventory                 JSONB,
  connectivity              JSONB,
  validations_info          JSONB,
  progress                  JSONB,
  step_results              JSONB NOT NULL DEFAULT '{}'::jsonb,  -- latest output per other step type
  spec                      JSONB NOT NULL DEFAULT '{}'::jsonb,  -- user-settable extras (node_labels, ...)
  checked_in_at             TIMESTAMPTZ,
  registered_at             TIMESTAMPTZ NOT NULL,
  row_version               BIGINT NOT NULL DEFAULT 1,
  created_at                TIMESTAMPTZ NOT NULL,
  updated_at                TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (id, infra_env_id)
);
CREATE INDEX hosts_cluster ON hosts (cluster_id);
CREATE INDEX hosts_infra_env ON hosts (infra_env_id);

CREATE TABLE events (
  seq            BIGSERIAL PRIMARY KEY,
  tenant         TEXT NOT NULL,
  name           TEXT,
  cluster_id     UUID,
  host_id        UUID,
  infra_env_id   UUID,
  severity       TEXT NOT NULL,
  category       TEXT NOT NULL DEFAULT 'user',
  message        TEXT NOT NULL,
  event_time     TIMESTAMPTZ NOT NULL,
  request_id     TEXT,
  props          JSONB
);
CREATE INDEX events_cluster ON events (cluster_id, event_time);
CREATE INDEX events_infra_env ON events (infra_env_id, event_time);
CREATE INDEX events_host ON events (host_id, event_time);
CREATE INDEX events_tenant ON events (tenant, event_time);

-- Bus events already applied, so a replayed event changes nothing.
CREATE TABLE processed_bus_events (
  event_id     TEXT PRIMARY KEY,
  processed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
