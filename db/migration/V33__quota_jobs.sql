-- Jobs that ran on GPUs borrowed from another account's guarantee (issue 16), and how that ended:
-- when a reclaim stopped them and for which job. One row per job (array task), kept when the job
-- is requeued and runs again; sacct shows it as the job's borrowed marker.
CREATE TABLE quota_jobs (
    job_id        BIGINT                   NOT NULL,
    array_task_id INTEGER                  NOT NULL,
    borrowed_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    reclaimed_at  TIMESTAMP WITH TIME ZONE,
    reclaimed_for VARCHAR(64),
    PRIMARY KEY (job_id, array_task_id)
);
