-- A QOS's PreemptExemptTime (issue 32): a job of the QOS that has run less than this many seconds is
-- not chosen by QOS preemption; null: none.
ALTER TABLE qos ADD COLUMN preempt_exempt_seconds BIGINT;

-- PreemptMode SUSPEND (issue 32): the victim is frozen on its nodes and resumes after its preemptor.
ALTER TABLE qos DROP CONSTRAINT ck_qos_preempt_mode;
ALTER TABLE qos ADD CONSTRAINT ck_qos_preempt_mode CHECK (preempt_mode IN ('REQUEUE', 'CANCEL', 'SUSPEND'));
