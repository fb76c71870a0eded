-- Slurm's GrpWall (issue 32) on associations and QOS, in seconds (sacctmgr takes and shows minutes);
-- NULL: none.
ALTER TABLE associations ADD COLUMN grp_wall_seconds BIGINT;
ALTER TABLE qos ADD COLUMN grp_wall_seconds BIGINT;

-- Slurm's QOS flag NoDecay: the QOS's own usage (its budgets' TRES-seconds and wall seconds) is neither
-- decayed nor cleared by the usage reset period.
ALTER TABLE qos ADD COLUMN no_decay BOOLEAN NOT NULL DEFAULT FALSE;

-- What GrpWall counts: the wall-clock seconds jobs ran, times their QOS's usage factor (Slurm's
-- grp_used_wall), per user association and per QOS, decayed and reset with the rest of the usage.
-- Counted from this migration on.
ALTER TABLE association_usage ADD COLUMN wall_seconds DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE qos_usage ADD COLUMN wall_seconds DOUBLE PRECISION DEFAULT 0 NOT NULL;
