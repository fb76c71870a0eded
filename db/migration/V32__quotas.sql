-- Guaranteed GPU quotas (issue 16): what an account is guaranteed, may borrow of its siblings' idle
-- guarantee and may lend of its own, as GPU TRES text (gres/gpu=512, gres/gpu:h100=64); null: none
-- (no guarantee, no borrowing or lending limit). A QOS's grace time is how long a job it runs gets
-- between the signal and the kill when it is preempted (Slurm's GraceTime); null: none.
ALTER TABLE accounts ADD COLUMN guaranteed_tres VARCHAR(256);
ALTER TABLE accounts ADD COLUMN max_borrow_tres VARCHAR(256);
ALTER TABLE accounts ADD COLUMN max_lend_tres VARCHAR(256);
ALTER TABLE qos ADD COLUMN grace_seconds BIGINT;
