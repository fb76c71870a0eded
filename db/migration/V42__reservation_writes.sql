-- One row every reservation create and update locks (SELECT ... FOR UPDATE) before it reads the
-- reservations its window must not overlap (issue 28): two writes for the same nodes and time, on
-- one controller or two, would otherwise both find the nodes free and both be stored.
CREATE TABLE reservation_writes (
    id INTEGER NOT NULL PRIMARY KEY
);

INSERT INTO reservation_writes (id) VALUES (1);
