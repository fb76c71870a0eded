-- Daily usage per account and user, rolled up with usage_hourly: a year's per-account or per-user
-- report by day reads 365 days x associations rows, not every hour's.
CREATE TABLE usage_daily (
    day_start    TIMESTAMP WITH TIME ZONE NOT NULL,
    account      VARCHAR(64) NOT NULL,
    user_name    VARCHAR(64) NOT NULL,
    cpu_seconds  BIGINT      NOT NULL,
    gpu_seconds  BIGINT      NOT NULL,
    PRIMARY KEY (day_start, account, user_name)
);
