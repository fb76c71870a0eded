-- A batch script may now be 4 MB (gantry.jobs.max-script-bytes, like Slurm's max_script_size), more
-- than the 1 MiB a VARCHAR holds in H2. The limit is enforced where submissions are read, so the
-- column itself is unbounded and raising the property needs no migration.
ALTER TABLE job_scripts ALTER COLUMN script SET DATA TYPE TEXT;
