-- Clusters and infra-envs made from Kubernetes custom resources (the kube face): "Kind/namespace/name" of the CR that
-- owns the row, as upstream keeps kube_key_namespace/kube_key_name. A create that names a key already taken returns
-- that row (so a reconcile after a crash finds what it made), and REST writes that do not name the owner are refused.
ALTER TABLE clusters ADD COLUMN kube_key TEXT;
ALTER TABLE infra_envs ADD COLUMN kube_key TEXT;
CREATE UNIQUE INDEX clusters_kube_key ON clusters (kube_key) WHERE kube_key IS NOT NULL;
CREATE UNIQUE INDEX infra_envs_kube_key ON infra_envs (kube_key) WHERE kube_key IS NOT NULL;
