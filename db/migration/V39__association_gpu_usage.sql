-- GPU-seconds per user association beside the billing-seconds of fair share (V8), so that usage can
-- be shown in GPU-hours (sshare's GrpTRESRaw for gres/gpu): decayed with the same half-life, and raw
-- (never decayed). Counted from this migration on; usage accrued before it has no GPU part.
ALTER TABLE association_usage ADD COLUMN gpu_decayed DOUBLE PRECISION DEFAULT 0 NOT NULL;
ALTER TABLE association_usage ADD COLUMN gpu_raw DOUBLE PRECISION DEFAULT 0 NOT NULL;
