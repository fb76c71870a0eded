-- sbatch's --segment (null: none): the job's nodes come in groups of this many, each inside one block.
ALTER TABLE jobs ADD COLUMN segment_size INTEGER;
