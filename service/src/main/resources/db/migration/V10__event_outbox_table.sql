-- The event relay's queue as a narrow table of its own instead of a flag on the events. Marking an event relayed
-- updated its wide row in place, and as the flag was in a partial index's predicate no such update could be HOT:
-- every relayed event got a new row version and an entry in each of the table's six indexes (about a tenth of a
-- millisecond of PostgreSQL per event, two to four events per host registration). Now each insert into events queues
-- its rows here (one trigger call per statement) and the relay deletes them once published; a queued event is one
-- still owed to the bus (the retention sweeper keeps it).
CREATE TABLE event_outbox (seq BIGINT PRIMARY KEY);

INSERT INTO event_outbox (seq) SELECT seq FROM events WHERE NOT published;

CREATE FUNCTION rdv_events_to_outbox() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_outbox (seq) SELECT seq FROM new_events;
  RETURN NULL;
END $$;

CREATE TRIGGER events_outbox AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION rdv_events_to_outbox();

DROP INDEX events_unpublished;
ALTER TABLE events DROP COLUMN published;
