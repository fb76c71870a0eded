-- Job steps: what srun started inside a job's allocation, numbered 0, 1, 2... per job (the batch
-- step is the job itself and has no row). Written when the step starts (state RUNNING) and again
-- when it ends, so followers and sacct see running steps too. `layout` is the tasks per node in
-- order (block distribution: node i runs the next layout[i] ranks), `resources` what the step
-- holds of the allocation while it runs (node:cpus:g0.g1;... as jobs.allocation writes it), so a
-- new leader knows what running steps hold.
CREATE TABLE job_steps (
    job_row       BIGINT        NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    step_id       INTEGER       NOT NULL,
    job_id        VARCHAR(32)   NOT NULL,
    name          VARCHAR(256)  NOT NULL,
    argv          TEXT          NOT NULL,
    nodelist      VARCHAR(4096) NOT NULL,
    node_count    INTEGER       NOT NULL,
    task_count    INTEGER       NOT NULL,
    cpus_per_task INTEGER       NOT NULL,
    layout        VARCHAR(4096) NOT NULL,
    resources     VARCHAR(65536),
    overlap       BOOLEAN       NOT NULL,
    state         VARCHAR(16)   NOT NULL,
    exit_code     INTEGER,
    start_time    TIMESTAMP WITH TIME ZONE NOT NULL,
    end_time      TIMESTAMP WITH TIME ZONE,
    PRIMARY KEY (job_row, step_id)
);

CREATE INDEX job_steps_state ON job_steps (state);
