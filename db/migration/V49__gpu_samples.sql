-- GPU use as node agents read it with nvidia-smi (issue 33): one row per reading of a GPU a job held.
-- A job's average and peak utilisation and peak memory (sacct's gres/gpuutil and gres/gpumem, seff,
-- the job view) and the allocated-but-idle GPU-hours of the utilisation report are computed from these
-- rows, written as the readings arrive, so they hold while the job runs and after it ends.
-- seconds: the time the reading stands for (since the GPU's previous one), so sums are GPU-seconds.
-- A value the GPU did not report ([N/A], e.g. a GPU split into MIG instances) is NULL, never 0.
CREATE TABLE gpu_samples (
    job_id           BIGINT           NOT NULL,
    array_task_id    INTEGER          NOT NULL,
    node             VARCHAR(64)      NOT NULL,
    gpu_index        INTEGER          NOT NULL,
    sampled_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    seconds          DOUBLE PRECISION NOT NULL,
    utilization      DOUBLE PRECISION,
    memory_used_mb   BIGINT,
    memory_total_mb  BIGINT,
    power_watts      DOUBLE PRECISION,
    temperature_c    DOUBLE PRECISION
);

CREATE INDEX gpu_samples_job ON gpu_samples (job_id, array_task_id, sampled_at);
CREATE INDEX gpu_samples_time ON gpu_samples (sampled_at);
