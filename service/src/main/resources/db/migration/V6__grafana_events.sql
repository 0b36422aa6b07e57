-- What Grafana's PostgreSQL data source reads, and all it may read: events with their cluster's name
-- (kept for events of deleted clusters as NULL). `./rendezvous observability` creates the read-only role
-- that is granted SELECT on this view alone.
CREATE VIEW rdv_grafana_events AS
  SELECT e.seq, e.event_time, e.tenant, e.severity, e.category, e.name, e.message,
         c.name AS cluster_name, e.cluster_id, e.host_id, e.infra_env_id
  FROM events e LEFT JOIN clusters c ON c.id = e.cluster_id;
