-- sbatch's --exclusive=<mode> (null: plain --exclusive or none): user, mcs or topo. topo gives the job
-- the blocks its nodes are in to itself; the Boolean exclusive column stays true for every mode.
ALTER TABLE jobs ADD COLUMN exclusive_mode VARCHAR(8);
