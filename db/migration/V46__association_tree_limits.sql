-- Association limits enforced at every level of the account tree (issue 32), as sacctmgr names
-- them: GrpJobs and GrpSubmitJobs (the association's and every association's below it, together),
-- MaxTRESPerJob and MaxTRESPerNode (TRES text as grp_tres), MaxWallDurationPerJob in seconds.
-- Null: no limit (an association without one takes its parent's Max limits).
ALTER TABLE associations ADD COLUMN grp_jobs INTEGER;
ALTER TABLE associations ADD COLUMN grp_submit_jobs INTEGER;
ALTER TABLE associations ADD COLUMN max_tres_per_job VARCHAR(256);
ALTER TABLE associations ADD COLUMN max_tres_per_node VARCHAR(256);
ALTER TABLE associations ADD COLUMN max_wall_seconds BIGINT;
