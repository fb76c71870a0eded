-- Slurm's partition QOS (issue 32): the QOS every job of the partition is also held to. qos is what holds
-- now (PATCH /partitions/{name} changes it, so it survives a restart); configured_qos is the cluster file's
-- value when last read, so that editing the file takes effect over an earlier PATCH.
ALTER TABLE partitions ADD COLUMN qos VARCHAR(64);
ALTER TABLE partitions ADD COLUMN configured_qos VARCHAR(64);
-- Slurm's QOS flag OverPartQOS: the QOS's limits win over those its job's partition QOS sets too.
ALTER TABLE qos ADD COLUMN over_part_qos BOOLEAN NOT NULL DEFAULT FALSE;
