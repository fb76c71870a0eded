-- The cluster's allocated CPU- and GPU-seconds per hour, rolled up with usage_hourly, so that a
-- cluster report reads one row per hour instead of summing every user's.
ALTER TABLE cluster_hourly ADD COLUMN alloc_cpu_seconds BIGINT DEFAULT 0 NOT NULL;
ALTER TABLE cluster_hourly ADD COLUMN alloc_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
UPDATE cluster_hourly c SET alloc_cpu_seconds = COALESCE((SELECT SUM(u.cpu_seconds) FROM usage_hourly u WHERE u.hour_start = c.hour_start), 0),
       alloc_gpu_seconds = COALESCE((SELECT SUM(u.gpu_seconds) FROM usage_hourly u WHERE u.hour_start = c.hour_start), 0);
