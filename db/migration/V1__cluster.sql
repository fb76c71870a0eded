-- Nodes and partitions. Their shape comes from configuration (gantry.cluster.*) and is
-- rewritten at every start; the store keeps what configuration cannot know: the state an
-- operator set, its reason, and (later) allocations and heartbeats.
CREATE TABLE nodes (
    name              VARCHAR(64)  NOT NULL PRIMARY KEY,
    cpus              INTEGER      NOT NULL,
    memory_mb         BIGINT       NOT NULL,
    gpus              INTEGER      NOT NULL,
    gpu_type          VARCHAR(64),
    features          VARCHAR(1024) NOT NULL,
    partitions        VARCHAR(1024) NOT NULL,
    switch_name       VARCHAR(64),
    block_name        VARCHAR(64),
    simulated         BOOLEAN      NOT NULL,
    admin_state       VARCHAR(16)  NOT NULL,
    reason            VARCHAR(1024),
    reason_user       VARCHAR(64),
    reason_time       TIMESTAMP WITH TIME ZONE,
    alloc_cpus        INTEGER      NOT NULL,
    alloc_memory_mb   BIGINT       NOT NULL,
    alloc_gpus        INTEGER      NOT NULL,
    last_heartbeat    TIMESTAMP WITH TIME ZONE,
    version           BIGINT       NOT NULL
);

CREATE TABLE partitions (
    name                  VARCHAR(64)   NOT NULL PRIMARY KEY,
    nodes                 VARCHAR(4000) NOT NULL,
    is_default            BOOLEAN       NOT NULL,
    default_time_seconds  BIGINT,
    max_time_seconds      BIGINT,
    priority_tier         INTEGER       NOT NULL,
    state                 VARCHAR(16)   NOT NULL,
    version               BIGINT        NOT NULL
);
