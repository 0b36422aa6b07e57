-- Events are written in the transaction that changes state; a relay then publishes them to the
-- events topic and marks them, so a crash between the two loses nothing (it republishes instead).
ALTER TABLE events ADD COLUMN published BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX events_unpublished ON events (seq) WHERE NOT published;
