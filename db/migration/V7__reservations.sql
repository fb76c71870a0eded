-- Advance reservations (Slurm's scontrol create reservation): nodes kept from start to end for
-- the jobs that name the reservation. Lists are comma-separated; flags among MAINT, IGNORE_JOBS.
CREATE TABLE reservations (
    name        VARCHAR(64)   NOT NULL PRIMARY KEY,
    nodes       VARCHAR(4000) NOT NULL,
    partition   VARCHAR(64),
    start_time  TIMESTAMP WITH TIME ZONE NOT NULL,
    end_time    TIMESTAMP WITH TIME ZONE NOT NULL,
    users       VARCHAR(4000) NOT NULL,
    accounts    VARCHAR(4000) NOT NULL,
    flags       VARCHAR(256)  NOT NULL,
    created_by  VARCHAR(64)   NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    version     BIGINT        NOT NULL
);

CREATE INDEX reservations_end ON reservations (end_time);
