-- The GPU idle policy (issue 33) is set per partition in the cluster file; a QOS can exempt its jobs from it
-- (gpuIdleExempt: their idle GPUs are never warned about, requeued or cancelled).
ALTER TABLE qos ADD COLUMN gpu_idle_exempt BOOLEAN NOT NULL DEFAULT FALSE;
