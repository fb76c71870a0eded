-- A node's MIG instances (profile=uuid,... in index order) and the shards each of its whole GPUs offers.
ALTER TABLE nodes ADD COLUMN mig_instances TEXT;
ALTER TABLE nodes ADD COLUMN shards_per_gpu INTEGER NOT NULL DEFAULT 0;
