-- Ids of live events (GET /api/v1/events). Every controller on the store takes them from here, so
-- a client may resume with Last-Event-ID against any controller, and ids keep growing across restarts
-- (a client resuming after one is told to reload rather than silently missing what happened).
CREATE SEQUENCE gantry_event_ids;
