-- A machine the configuration does not name, joining while gantry.agents.approve-new-nodes is on,
-- stays DOWN ("awaiting approval") until an ADMIN approves it; stored so that neither a restart nor
-- another controller forgets which nodes were let in.
ALTER TABLE nodes ADD COLUMN awaiting_approval BOOLEAN DEFAULT FALSE NOT NULL;

-- The join token an ADMIN rotated to. It wins over gantry.agents.join-token and the generated one,
-- on every controller sharing this store; NULL until the first rotation. One row (id 1). It is kept
-- as such, not hashed: ADMINs read it back to add machines.
CREATE TABLE agent_join_token (
    id          INTEGER PRIMARY KEY,
    token       VARCHAR(128),
    rotated_at  TIMESTAMP WITH TIME ZONE,
    rotated_by  VARCHAR(64)
);
INSERT INTO agent_join_token (id, token, rotated_at, rotated_by) VALUES (1, NULL, NULL, NULL);
