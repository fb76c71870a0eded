-- ?sort=start reads a pending job's expected start where it has no start time (squeue --start), so
-- its order is an expression: indexed here, word for word as JobSort.Field.START, so a first page is
-- read in index order rather than by sorting every job ever run. The plain start_time index stays
-- for time filters. PostgreSQL only: H2 has no expression indexes.
CREATE INDEX jobs_start_order ON jobs ((COALESCE(start_time, expected_start_time)), job_id, array_task_id);
