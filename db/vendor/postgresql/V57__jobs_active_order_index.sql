-- The dashboard's order of GET /jobs (?sort=active: running first, then pending by priority, then ended
-- newest first), as expression indexes so its first page is an index read, not a sort of every job ever
-- run; one for all jobs (an operator's list), one per user (a user's own). The expressions must stay
-- word for word those of JobSort's ACTIVE_TERMS. PostgreSQL only, as V13_1.
CREATE INDEX jobs_active_order ON jobs (
    (CASE WHEN state IN ('RUNNING', 'COMPLETING', 'SUSPENDED') THEN 0 WHEN state = 'PENDING' THEN 1 ELSE 2 END),
    (CASE WHEN state = 'PENDING' THEN priority ELSE 0 END) DESC,
    end_time DESC NULLS FIRST,
    job_id DESC,
    array_task_id);

CREATE INDEX jobs_user_active_order ON jobs (
    user_name,
    (CASE WHEN state IN ('RUNNING', 'COMPLETING', 'SUSPENDED') THEN 0 WHEN state = 'PENDING' THEN 1 ELSE 2 END),
    (CASE WHEN state = 'PENDING' THEN priority ELSE 0 END) DESC,
    end_time DESC NULLS FIRST,
    job_id DESC,
    array_task_id);
