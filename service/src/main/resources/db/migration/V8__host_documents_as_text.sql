-- A host's large documents (its inventory, connectivity report and validations_info) are stored as text, as
-- upstream stores them: nothing queries into them, every read casts them back to text, and parsing each write
-- into JSONB was most of PostgreSQL's work per host write (a 7 KB validations_info: ~0.27 ms parsed and compressed
-- as JSONB, ~0.07 ms as text; a 1,000-host cluster's 300 KB connectivity reports far more). The brain writes
-- them from the documents it validated, so they are JSON still.
ALTER TABLE hosts
  ALTER COLUMN inventory TYPE TEXT USING inventory::text,
  ALTER COLUMN connectivity TYPE TEXT USING connectivity::text,
  ALTER COLUMN validations_info TYPE TEXT USING validations_info::text;
