-- sbatch's --time-min in seconds (null: none): backfill may start the job with a shorter limit, down
-- to this; the limit it starts with is then its time limit, as in Slurm.
ALTER TABLE jobs ADD COLUMN time_min_seconds BIGINT;
