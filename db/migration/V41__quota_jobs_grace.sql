-- A reclaim victim in its QOS's grace time (issue 16), written in the transaction of the reclaim
-- decision, so that a controller that becomes the leader during the grace (a restart, a takeover)
-- stops the victim at the same deadline, does not warn it again and does not choose other victims for
-- the same need: when the reclaim chose it (its current run started before), when it is stopped, how
-- (REQUEUE or CANCEL), the history's detail and the owner's job it makes room for. Cleared when the
-- reclaim stops it; a grace that started before the job's current run is an earlier run's, ignored.
ALTER TABLE quota_jobs ADD COLUMN grace_from TIMESTAMP WITH TIME ZONE;
ALTER TABLE quota_jobs ADD COLUMN grace_until TIMESTAMP WITH TIME ZONE;
ALTER TABLE quota_jobs ADD COLUMN grace_mode VARCHAR(16);
ALTER TABLE quota_jobs ADD COLUMN grace_detail VARCHAR(2000);
ALTER TABLE quota_jobs ADD COLUMN grace_for VARCHAR(64);
