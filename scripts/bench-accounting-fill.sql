-- Fills the jobs table with :jobs finished jobs (default 1,000,000) spread over 2025, for
-- scripts/bench-accounting.sh. Deterministic (setseed): ~200 users (a few busy, many occasional) in
-- 20 accounts, 40% of jobs on partition gpu (1-4 nodes x 1/2/4/8 GPUs) and 60% on cpu (1-128 CPUs),
-- run times from a minute to two days, mostly short; 80% COMPLETED, the rest FAILED, CANCELLED,
-- TIMEOUT, NODE_FAIL. Ids grow with submit time, as the job_ids sequence hands them out.
SELECT setseed(0.42);

INSERT INTO jobs (job_id, array_task_id, name, user_name, account, partitions, partition, qos, state, reason,
        hold, priority, submit_time, eligible_time, start_time, end_time, time_limit_seconds, min_nodes, tasks,
        cpus_per_task, memory_mb, gpus, gpus_per_node, exclusive, nice, requeue, requeue_count, cancel_requested,
        exit_code, end_state, allocated_nodes, allocation, batch_host, launched, version)
SELECT id, -1, 'job-' || (id % 997), 'user' || lpad(u::text, 3, '0'), 'acct' || lpad((u % 20)::text, 2, '0'),
       part, part, 'normal', state, 'None', 'NONE', 0, submit, submit, start, start + make_interval(secs => run),
       time_limit, nodes, nodes, per_node_cpus, nodes * per_node_mem, nodes * per_node_gpus, per_node_gpus, false, 0,
       false, 0, false, exit_code, state,
       CASE WHEN nodes = 1 THEN part || lpad(first_node::text, 3, '0')
            ELSE part || '[' || lpad(first_node::text, 3, '0') || '-' || lpad((first_node + nodes - 1)::text, 3, '0') || ']' END,
       (SELECT string_agg(part || lpad((first_node + n)::text, 3, '0') || ':' || per_node_cpus || ':' || per_node_mem
                || ':' || gpu_indices, ';' ORDER BY n) FROM generate_series(0, nodes - 1) AS n),
       part || lpad(first_node::text, 3, '0'), true, 1
FROM (
    SELECT id, u, part, submit, start, time_limit, nodes, per_node_cpus, per_node_mem, per_node_gpus, first_node,
           (ARRAY['', '0', '0.1', '', '0.1.2.3', '', '', '', '0.1.2.3.4.5.6.7'])[per_node_gpus + 1] AS gpu_indices,
           CASE WHEN fate < 0.80 THEN 'COMPLETED' WHEN fate < 0.90 THEN 'FAILED' WHEN fate < 0.95 THEN 'CANCELLED'
                WHEN fate < 0.98 THEN 'TIMEOUT' ELSE 'NODE_FAIL' END AS state,
           CASE WHEN fate < 0.80 THEN 0 WHEN fate < 0.90 THEN 1 WHEN fate < 0.95 THEN 0 WHEN fate < 0.98 THEN 0 ELSE 1 END
               AS exit_code,
           CASE WHEN fate >= 0.95 AND fate < 0.98 THEN time_limit ELSE least(run, time_limit) END AS run
    FROM (
        SELECT id, u, part, submit, submit + make_interval(secs => floor(power(random(), 4) * 14400)) AS start,
               nodes, per_node_gpus, first_node, fate, run,
               -- time limits as people write them: whole hours, generous
               (ceil(run / 3600.0) + 1 + floor(random() * 4)) * 3600 AS time_limit,
               CASE WHEN part = 'gpu' THEN 16 * per_node_gpus ELSE per_node_cpus END AS per_node_cpus,
               CASE WHEN part = 'gpu' THEN 131072 * per_node_gpus ELSE 4096 * per_node_cpus END AS per_node_mem
        FROM (
            SELECT id, u, part, submit, fate,
                   CASE WHEN part = 'gpu' AND r1 > 0.97 THEN 4 WHEN part = 'gpu' AND r1 > 0.85 THEN 2 ELSE 1 END AS nodes,
                   CASE WHEN part = 'gpu' THEN (ARRAY[1, 2, 4, 8])[1 + floor(r2 * 4)::int] ELSE 0 END AS per_node_gpus,
                   CASE WHEN part = 'cpu' THEN (ARRAY[1, 2, 4, 8, 16, 32, 64, 128])[1 + floor(r2 * 8)::int] ELSE 0 END
                       AS per_node_cpus,
                   CASE WHEN part = 'gpu' THEN 1 + floor(r3 * 252)::int ELSE 1 + floor(r3 * 508)::int END AS first_node,
                   60 + floor(power(random(), 3) * 172800)::int AS run
            FROM (
                SELECT g AS id,
                       floor(200 * power(random(), 2))::int AS u,
                       CASE WHEN random() < 0.4 THEN 'gpu' ELSE 'cpu' END AS part,
                       TIMESTAMPTZ '2025-01-01 00:00:00+00'
                           + make_interval(secs => (g - 1) * (365 * 86400.0 / :jobs) + random() * 20) AS submit,
                       random() AS fate, random() AS r1, random() AS r2, random() AS r3
                FROM generate_series(1, :jobs) AS g
            ) base
        ) shaped
    ) timed
) finished;

SELECT setval('job_ids', (SELECT max(job_id) FROM jobs));
ANALYZE jobs;
