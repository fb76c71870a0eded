-- A QOS's per-account limits and per-job minimums (issue 32): Slurm's MaxJobsPerAccount, MaxTRESPerAccount
-- (what the running jobs of one account under the QOS may hold) and MinTRESPerJob; null: none.
ALTER TABLE qos ADD COLUMN max_jobs_per_account INTEGER;
ALTER TABLE qos ADD COLUMN max_tres_per_account VARCHAR(256);
ALTER TABLE qos ADD COLUMN min_tres_per_job VARCHAR(256);
