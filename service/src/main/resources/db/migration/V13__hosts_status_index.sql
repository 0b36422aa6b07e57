-- The fleet gauges count hosts by status (and installing hosts by stage) every 15 s: with this index the count is an
-- index-only scan and the installing hosts are found without reading the whole table (FleetGaugesBench).
CREATE INDEX hosts_status ON hosts (status);
