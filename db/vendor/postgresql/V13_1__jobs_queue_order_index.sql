-- The default order of GET /jobs (pending first by priority, highest first, then the rest by id), as
-- expression indexes so its first page is read in index order instead of sorting every job ever
-- run: one for the whole queue, one per user (a USER's own jobs with private-jobs on, or ?user=).
-- Without the second, PostgreSQL read the whole queue index looking for a user with few jobs (330 ms
-- over 1,100,000 rows). The expressions must stay word for word those of JobSort.QUEUE_ORDER.
-- PostgreSQL only: H2 has no expression indexes (the embedded store sorts, fine at its size).
CREATE INDEX jobs_queue_order ON jobs (
    (CASE WHEN state = 'PENDING' THEN 0 ELSE 1 END),
    (CASE WHEN state = 'PENDING' THEN priority ELSE 0 END) DESC,
    job_id,
    array_task_id);

CREATE INDEX jobs_user_queue_order ON jobs (
    user_name,
    (CASE WHEN state = 'PENDING' THEN 0 ELSE 1 END),
    (CASE WHEN state = 'PENDING' THEN priority ELSE 0 END) DESC,
    job_id,
    array_task_id);
