-- Node agents. A node either is simulated (configuration says so) or is run by an agent that
-- registers, heartbeats and runs its jobs. agent_state is NULL until an agent first registers,
-- then UP, or NOT_RESPONDING after it missed its heartbeats (the node is DOWN until it is back).
-- agent_credential holds the SHA-256 (hex) of the node's credential, never the credential.
-- A node that joined without being configured is "joined": it keeps its row across restarts.
ALTER TABLE nodes ADD COLUMN agent_state VARCHAR(16);
ALTER TABLE nodes ADD COLUMN agent_credential VARCHAR(64);
ALTER TABLE nodes ADD COLUMN joined BOOLEAN DEFAULT FALSE NOT NULL;
CREATE UNIQUE INDEX nodes_agent_credential ON nodes (agent_credential);

-- The node that runs a job's batch script (the first of its allocation), and whether its agent
-- has said it started it: a running job its agent no longer knows was lost, one never launched
-- is launched again.
ALTER TABLE jobs ADD COLUMN batch_host VARCHAR(64);
ALTER TABLE jobs ADD COLUMN launched BOOLEAN DEFAULT FALSE NOT NULL;
CREATE INDEX jobs_batch_host ON jobs (batch_host, state);
