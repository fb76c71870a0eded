-- A job that names no memory gets its partition's default; this is what its first partition would give
-- it per node, shown while it waits (the allocation holds what it got).
ALTER TABLE jobs ADD COLUMN default_memory_mb BIGINT;
