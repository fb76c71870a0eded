-- sbatch's --switches=count[@max-time], stored as count@seconds (null: none): the engine keeps the
-- job waiting up to that long for an allocation on at most that many leaf switches.
ALTER TABLE jobs ADD COLUMN switches_spec VARCHAR(32);
