package io.gantry.events;

import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The embedded store serves one process: events go straight to this controller's streams. Their
 * ids still come from the store's sequence, so they keep growing across restarts and a client
 * resuming from before one is told to reload instead of silently missing what happened meanwhile.
 */
final class LocalEventRelay extends EventRelay {

    private final JdbcTemplate jdbc;

    LocalEventRelay(JdbcTemplate jdbc, EventStreams streams, EventsProperties properties, Owners owners) {
        super(streams, properties, owners);
        this.jdbc = jdbc;
    }

    @Override
    protected void prepare() {
        streams.restart(ids(1).get(0), false);
    }

    @Override
    protected void ship(List<Draft> drafts, boolean reset) {
        List<Long> ids = ids(drafts.size() + (reset ? 1 : 0));
        int next = 0;
        if (reset) {
            streams.restart(ids.get(next++), true);
        }
        List<LiveEvent> events = new ArrayList<>(drafts.size());
        for (Draft d : drafts) {
            events.add(new LiveEvent(ids.get(next++), d.kind(), d.subject(), d.change(), d.time(), d.owner()));
        }
        streams.deliver(events);
    }

    private List<Long> ids(int count) {
        List<Long> ids = new ArrayList<>(jdbc.queryForList(
                "SELECT NEXT VALUE FOR gantry_event_ids FROM SYSTEM_RANGE(1, ?)", Long.class, count));
        ids.sort(null);
        return ids;
    }
}
