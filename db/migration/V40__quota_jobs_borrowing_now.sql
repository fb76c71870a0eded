-- Where a running job borrows now (issue 16), so that a new leader (a restart, a takeover) places
-- the running jobs as the old leader's last plan did: per GPU key, the account whose children's idle
-- guarantee it borrows ("=research" for GPUs of any type, "h100=root" for a type, comma-separated).
-- The empty string: its current run does not borrow (any more). NULL: not known (rows written
-- before this column); the borrowed marker alone then says it may borrow.
ALTER TABLE quota_jobs ADD COLUMN borrowing_now VARCHAR(2000);
