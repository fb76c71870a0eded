-- What a job's run used, as its node measured it in the job's cgroup and reported with its end:
-- the peak memory (bytes) and the CPU time of all its processes (milliseconds), for sacct's MaxRSS and
-- TotalCPU. NULL when not known: simulated nodes, nodes without cgroups, jobs that never started or
-- have not ended. A requeued job's new run starts unknown again.
ALTER TABLE jobs ADD COLUMN max_rss_bytes BIGINT;
ALTER TABLE jobs ADD COLUMN total_cpu_millis BIGINT;
