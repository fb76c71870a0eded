-- Power saving (Slurm's SuspendProgram/ResumeProgram): where a node is in its power cycle, and since when.
-- NULL is powered on; otherwise POWERING_DOWN, POWERED_DOWN or POWERING_UP.
ALTER TABLE nodes ADD COLUMN power_state VARCHAR(16);
ALTER TABLE nodes ADD COLUMN power_since TIMESTAMP WITH TIME ZONE;

-- Idle causes: GPUs on powered-down nodes are their own cause, apart from down and from no demand.
ALTER TABLE cluster_hourly ADD COLUMN idle_powered_down_gpu_seconds BIGINT DEFAULT 0 NOT NULL;
