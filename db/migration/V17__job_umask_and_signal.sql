-- Jobs run as their owner: the umask the job was submitted with (octal digits, null: the agent's 0077)
-- and sbatch's --signal, normalised as [B:]SIG@seconds (null: none). Both travel with the launch.
ALTER TABLE jobs ADD COLUMN umask VARCHAR(4);
ALTER TABLE jobs ADD COLUMN signal_spec VARCHAR(32);
