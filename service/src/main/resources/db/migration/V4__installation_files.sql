-- What an installation needs beside the rows the brain writes:
--   cluster_files:     generated install-config, Ignition configs, credentials (and the kubeconfig with the ingress CA
--                      merged in), each tagged with the preparation (install_started_at) that made it;
--   cluster_manifests: the user's custom manifests (folder manifests or openshift);
--   cluster_logs:      uploaded log bundles, one per (type, host), the last upload wins.
CREATE TABLE cluster_files (
  cluster_id   UUID NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
  file_name    TEXT NOT NULL,
  content      BYTEA NOT NULL,
  preparation  TIMESTAMPTZ,
  generator    TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster_id, file_name)
);

CREATE TABLE cluster_manifests (
  cluster_id   UUID NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
  folder       TEXT NOT NULL,
  file_name    TEXT NOT NULL,
  content      TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  updated_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (cluster_id, folder, file_name)
);

CREATE TABLE cluster_logs (
  cluster_id   UUID NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
  logs_type    TEXT NOT NULL,
  host_id      UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  file_name    TEXT NOT NULL,
  content      BYTEA NOT NULL,
  uploaded_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (cluster_id, logs_type, host_id)
);
