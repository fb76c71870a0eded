-- The default order of GET /jobs (pending first by priority, highest first, then the rest by id), as
-- an expression index so its first page is read in index order instead of sorting every job ever
-- run. The expressions must stay word for word those of JobLists.QUEUE_ORDER. PostgreSQL only: H2
-- has no expression indexes (on H2 the embedded store sorts, which is fine at its size).
CREATE INDEX jobs_queue_order ON jobs (
    (CASE WHEN state = 'PENDING' THEN 0 ELSE 1 END),
    (CASE WHEN state = 'PENDING' THEN priority ELSE 0 END) DESC,
    job_id,
    array_task_id);
