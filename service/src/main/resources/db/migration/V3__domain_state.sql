-- Domain-only state the brain keeps beside the columns the REST view reads (status, inventory,
-- connectivity, validations_info, progress stay authoritative in their own columns):
--   hosts.state:    day2, media_disconnected, timestamp (host clock), connection/stage timed out,
--                   logs info and times.
--   clusters.state: connectivity majority groups, IP collisions, ignored validations, last installation
--                   preparation, finalizing stage, monitored operators, kubeconfig, logs info and times.
ALTER TABLE hosts ADD COLUMN state JSONB NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE clusters ADD COLUMN state JSONB NOT NULL DEFAULT '{}'::jsonb;

-- Raises when a unit of work finds the rows it read changed (or the bus event already applied), so
-- every statement of the transaction can be sent at once and a stale or replayed write aborts it all.
CREATE FUNCTION rdv_assert(ok BOOLEAN, reason TEXT) RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION '%', reason USING ERRCODE = 'RDV01';
  END IF;
  RETURN TRUE;
END $$;
