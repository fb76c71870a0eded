-- Power saving (Slurm's SuspendProgram/ResumeProgram): where a node is in its power cycle, and since when.
-- NULL is powered on; otherwise POWERING_DOWN, POWERED_DOWN or POWERING_UP.
ALTER TABLE nodes ADD COLUMN power_state VARCHAR(16);
ALTER TABLE nodes ADD COLUMN power_since TIMESTAMP WITH TIME ZONE;
