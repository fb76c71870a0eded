-- scontrol suspend (issue 32): a job an operator suspended keeps what it holds (its CPUs, memory and GPUs go to
-- no one else) and is resumed only by scontrol resume, unlike one suspended for its preemptor (PreemptMode
-- SUSPEND), which holds nothing and resumes on its own. The name of who suspended it; null when not so suspended.
ALTER TABLE jobs ADD COLUMN suspended_by VARCHAR(255);
-- sbatch --kill-on-invalid-dep=yes|no: whether a job whose dependency can never be satisfied is cancelled (true)
-- or pends with reason DependencyNeverSatisfied (false); null when not given (the cluster's default).
ALTER TABLE jobs ADD COLUMN kill_on_invalid_dep BOOLEAN;
