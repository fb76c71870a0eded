-- Utilization reports (like sreport): hourly rollups so that a year's report reads ~8,760 rows.
-- usage_hourly: CPU- and GPU-seconds that finished jobs held, split exactly into the hours they ran,
-- per account and user (jobs still running are added when a report is asked for).
-- cluster_hourly: capacity seconds sampled by the leader: all of it, down (DOWN, DRAINED, not
-- responding) and reserved (in an advance reservation); idle is what remains.
CREATE TABLE usage_hourly (
    hour_start   TIMESTAMP WITH TIME ZONE NOT NULL,
    account      VARCHAR(64) NOT NULL,
    user_name    VARCHAR(64) NOT NULL,
    cpu_seconds  BIGINT      NOT NULL,
    gpu_seconds  BIGINT      NOT NULL,
    PRIMARY KEY (hour_start, account, user_name)
);

CREATE TABLE cluster_hourly (
    hour_start            TIMESTAMP WITH TIME ZONE NOT NULL PRIMARY KEY,
    total_cpu_seconds     BIGINT NOT NULL,
    total_gpu_seconds     BIGINT NOT NULL,
    down_cpu_seconds      BIGINT NOT NULL,
    down_gpu_seconds      BIGINT NOT NULL,
    reserved_cpu_seconds  BIGINT NOT NULL,
    reserved_gpu_seconds  BIGINT NOT NULL
);

-- rolled_up_to: every job that ended at or before it is in usage_hourly. sampled_at: the last sample.
CREATE TABLE utilization_state (
    id            INTEGER NOT NULL PRIMARY KEY,
    rolled_up_to  TIMESTAMP WITH TIME ZONE NOT NULL,
    sampled_at    TIMESTAMP WITH TIME ZONE
);

INSERT INTO utilization_state (id, rolled_up_to, sampled_at) VALUES (1, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', NULL);

