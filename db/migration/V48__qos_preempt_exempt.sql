-- A QOS's PreemptExemptTime (issue 32): a job of the QOS that has run less than this many seconds is
-- not chosen by QOS preemption; null: none.
ALTER TABLE qos ADD COLUMN preempt_exempt_seconds BIGINT;
