-- Why GPUs were not allocated (issue 15): at each capacity sample every free GPU gets one cause
-- (down > draining > reserved > limits > topology > fragmented > no demand), times the seconds the
-- sample covers. The seven add up to the sampled non-allocated GPU-seconds of the hour; hours
-- sampled before this migration have none (all 0).
ALTER TABLE cluster_hourly ADD COLUMN idle_no_demand_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_reserved_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_fragmented_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_topology_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_limits_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_draining_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN idle_down_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
