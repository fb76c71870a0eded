-- A user's token epoch: every bearer token carries the epoch its user had when it was issued, and
-- is refused once the user's epoch moved on. It changes (to a new random value) when the user's
-- password, roles or enabled flag change and on POST /api/v1/auth/tokens/revoke; a user created
-- again under a deleted user's name starts with a random one, so the old user's tokens fail too.
-- Existing users keep 0, the epoch of tokens issued before there was one (they have no claim).
ALTER TABLE users ADD COLUMN token_epoch BIGINT NOT NULL DEFAULT 0;
