-- TRES-minutes budgets (issue 32), Slurm's GrpTRESMins, GrpTRESRunMins and MaxTRESMinsPerJob on
-- associations and QOS, in Slurm's TRES notation (e.g. gres/gpu=6000); NULL: none.
ALTER TABLE associations ADD COLUMN grp_tres_mins VARCHAR(256);
ALTER TABLE associations ADD COLUMN grp_tres_run_mins VARCHAR(256);
ALTER TABLE associations ADD COLUMN max_tres_mins_per_job VARCHAR(256);
ALTER TABLE qos ADD COLUMN grp_tres_mins VARCHAR(256);
ALTER TABLE qos ADD COLUMN grp_tres_run_mins VARCHAR(256);
ALTER TABLE qos ADD COLUMN max_tres_mins_per_job VARCHAR(256);

-- What the budgets count, per user association: TRES-seconds of CPUs, memory (MB), nodes and GPUs
-- times the QOS's usage factor, decayed with the fair-share half-life (Slurm's usage_tres_raw), and
-- reset with usage. Counted from this migration on.
ALTER TABLE association_usage ADD COLUMN tres_cpu DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE association_usage ADD COLUMN tres_mem DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE association_usage ADD COLUMN tres_node DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE association_usage ADD COLUMN tres_gpu DOUBLE PRECISION DEFAULT 0 NOT NULL;

-- The same per QOS, for the QOS's budgets.
CREATE TABLE qos_usage (
    qos        VARCHAR(64)      NOT NULL PRIMARY KEY,
    tres_cpu   DOUBLE PRECISION DEFAULT 0 NOT NULL,
    tres_mem   DOUBLE PRECISION DEFAULT 0 NOT NULL,
    tres_node  DOUBLE PRECISION DEFAULT 0 NOT NULL,
    tres_gpu   DOUBLE PRECISION DEFAULT 0 NOT NULL
);
