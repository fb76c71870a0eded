-- sbatch's --deadline (null: none): a job that can no longer end by then ends DEADLINE. The scheduler
-- looks for the few jobs that have one each second, through this index.
ALTER TABLE jobs ADD COLUMN deadline TIMESTAMP WITH TIME ZONE;
CREATE INDEX jobs_deadline ON jobs (deadline);
