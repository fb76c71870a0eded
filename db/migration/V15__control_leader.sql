-- Where the scheduling leader answers: followers forward writes there and tell agents to go there.
-- One row (id 1), written by each controller as it becomes the leader.
CREATE TABLE control_leader (
    id    INTEGER PRIMARY KEY,
    url   VARCHAR(1024) NOT NULL,
    since TIMESTAMP WITH TIME ZONE NOT NULL
);
