-- Billing budgets on a QOS (GrpTRESMins=billing=N, issue 32): the QOS's jobs' billing-seconds (their
-- partition's TRESBillingWeights x what they held, times the QOS's usage factor), decayed and reset as
-- its other TRES-seconds. An association's billing is fair share's own usage (association_usage.usage_decayed).
ALTER TABLE qos_usage ADD COLUMN tres_billing DOUBLE PRECISION DEFAULT 0 NOT NULL;
