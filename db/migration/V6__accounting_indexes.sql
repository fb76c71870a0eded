-- Job accounting (GET /accounting/jobs, like sacct) asks "which jobs ran or ended in [start, end)":
-- end_time >= start (or still running) and started before end. A range on end_time finds them, and
-- the (user, end) and (account, end) pairs answer "a user's month" and "an account's month" without
-- reading other users' jobs. Plain B-tree indexes: the same SQL runs on H2 and PostgreSQL.
CREATE INDEX jobs_end ON jobs (end_time);
CREATE INDEX jobs_user_end ON jobs (user_name, end_time);
CREATE INDEX jobs_account_end ON jobs (account, end_time);
