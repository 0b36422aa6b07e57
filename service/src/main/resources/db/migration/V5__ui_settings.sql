-- The UI's own per-cluster settings: an opaque string the service stores and returns (upstream's ui-settings).
ALTER TABLE clusters ADD COLUMN ui_settings TEXT NOT NULL DEFAULT '';
