package io.gantry.events;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.zaxxer.hikari.HikariDataSource;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Several controllers on one PostgreSQL, one event stream: each event is sent with
 * {@code NOTIFY gantry_events} from the controller where it happened, and every controller
 * (that one included) hears it on a connection of its own that only LISTENs, and hands it to its
 * streams. Nothing reaches the streams any other way, so no event is delivered twice, and every
 * controller sees events in the same order (PostgreSQL delivers notifications in commit order).
 * Ids come from the store's sequence, so {@code Last-Event-ID} means the same on every controller.
 * <p>
 * The listener reconnects when its connection drops; events sent meanwhile are lost to it, so its
 * clients are told to reload.
 */
final class PostgresEventRelay extends EventRelay {

    static final String CHANNEL = "gantry_events";
    /** NOTIFY payloads must stay under 8,000 bytes; events are packed a line each up to this. */
    private static final int PAYLOAD = 7000;
    private static final int POLL_MILLIS = 1000;

    private static final Logger log = LoggerFactory.getLogger(PostgresEventRelay.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final DataSource dataSource;
    private Thread listener;

    PostgresEventRelay(DataSource dataSource, EventStreams streams, EventsProperties properties) {
        this(dataSource, streams, properties, Owners.NONE);
    }

    PostgresEventRelay(DataSource dataSource, EventStreams streams, EventsProperties properties, Owners owners) {
        super(streams, properties, owners);
        this.dataSource = dataSource;
    }

    @Override
    public void start() {
        super.start();
        listener = new Thread(this::listen, "events-listener");
        listener.setDaemon(true);
        listener.start();
    }

    @Override
    public void stop() {
        super.stop();
        if (listener != null) {
            try {
                listener.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    protected void prepare() {
        // The listener sets the ring's horizon once it listens.
    }

    @Override
    protected void ship(List<Draft> drafts, boolean reset) throws SQLException {
        int count = drafts.size() + (reset ? 1 : 0);
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                List<Long> ids = ids(c, count);
                List<String> lines = new ArrayList<>(count);
                int next = 0;
                if (reset) {
                    ObjectNode line = JSON.createObjectNode();
                    line.put("seq", ids.get(next++));
                    line.put("kind", "reset");
                    lines.add(JSON.writeValueAsString(line));
                }
                for (Draft d : drafts) {
                    ObjectNode line = JSON.createObjectNode();
                    line.put("seq", ids.get(next++));
                    line.put("kind", d.kind());
                    line.put("id", d.subject());
                    line.put("change", d.change());
                    line.put("time", d.time().toString());
                    if (d.owner() != null) {
                        line.put("user", d.owner());
                    }
                    lines.add(JSON.writeValueAsString(line));
                }
                try (PreparedStatement notify = c.prepareStatement("SELECT pg_notify('" + CHANNEL + "', ?)")) {
                    for (String payload : payloads(lines)) {
                        notify.setString(1, payload);
                        notify.executeQuery().close();
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    private static List<Long> ids(Connection c, int count) throws SQLException {
        List<Long> ids = new ArrayList<>(count);
        try (PreparedStatement s = c.prepareStatement("SELECT nextval('gantry_event_ids') FROM generate_series(1, ?)")) {
            s.setInt(1, count);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    ids.add(r.getLong(1));
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    private static List<String> payloads(List<String> lines) {
        List<String> payloads = new ArrayList<>();
        StringBuilder payload = new StringBuilder();
        for (String line : lines) {
            if (payload.length() > 0 && payload.length() + 1 + line.length() > PAYLOAD) {
                payloads.add(payload.toString());
                payload.setLength(0);
            }
            if (payload.length() > 0) {
                payload.append('\n');
            }
            payload.append(line);
        }
        if (payload.length() > 0) {
            payloads.add(payload.toString());
        }
        return payloads;
    }

    private void listen() {
        boolean first = true;
        long backoff = 0;
        while (running()) {
            try {
                if (backoff > 0) {
                    Thread.sleep(backoff);
                }
                try (Connection c = listeningConnection()) {
                    try (Statement s = c.createStatement()) {
                        s.execute("LISTEN " + CHANNEL);
                    }
                    // Ids taken from here on belong to notifications sent after LISTEN took effect.
                    long horizon;
                    try (Statement s = c.createStatement();
                            ResultSet r = s.executeQuery("SELECT nextval('gantry_event_ids')")) {
                        r.next();
                        horizon = r.getLong(1);
                    }
                    streams.restart(horizon, !first);
                    if (!first) {
                        log.info("Listening for live events again; their clients were told to reload");
                    }
                    first = false;
                    backoff = 0;
                    receive(c);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SQLException | ReflectiveOperationException | RuntimeException e) {
                if (!running()) {
                    return;
                }
                backoff = backoff == 0 ? 500 : Math.min(backoff * 2, 10_000);
                log.warn("Lost the live event listener's connection ({}); reconnecting in {} ms", e.toString(), backoff);
            }
        }
    }

    private void receive(Connection c) throws SQLException, ReflectiveOperationException {
        Notifications notifications = new Notifications(c);
        long lastCheck = System.nanoTime();
        long check = properties.heartbeat().toNanos();
        while (running()) {
            List<String> payloads = notifications.await(POLL_MILLIS);
            if (!payloads.isEmpty()) {
                deliver(payloads);
                lastCheck = System.nanoTime();
            } else if (System.nanoTime() - lastCheck > check) {
                // A connection that died silently waits forever; a round trip finds out.
                if (!c.isValid(5)) {
                    throw new SQLException("the listening connection is no longer valid");
                }
                lastCheck = System.nanoTime();
            }
        }
    }

    private void deliver(List<String> payloads) {
        List<LiveEvent> events = new ArrayList<>();
        for (String payload : payloads) {
            for (String line : payload.split("\n")) {
                JsonNode n = JSON.readTree(line);
                long seq = n.get("seq").asLong();
                if ("reset".equals(n.get("kind").asString())) {
                    streams.deliver(events);
                    events.clear();
                    streams.restart(seq, true);
                } else {
                    events.add(new LiveEvent(seq, n.get("kind").asString(), n.get("id").asString(),
                            n.get("change").asString(), Instant.parse(n.get("time").asString()),
                            n.has("user") ? n.get("user").asString() : null));
                }
            }
        }
        streams.deliver(events);
    }

    /**
     * A physical connection of its own, outside the pool: it is held for as long as the controller
     * runs, and a pool would count it against the requests' connections.
     */
    private Connection listeningConnection() throws SQLException {
        if (dataSource.isWrapperFor(HikariDataSource.class)) {
            HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
            return DriverManager.getConnection(hikari.getJdbcUrl(), hikari.getUsername(), hikari.getPassword());
        }
        return dataSource.getConnection();
    }

    /**
     * PgJDBC's {@code PGConnection.getNotifications(timeout)}, reached by reflection: the driver is
     * a run-time dependency only, kept off the compile classpath so no code binds to one database.
     */
    private static final class Notifications {

        private final Object connection;
        private final Method getNotifications;
        private final Method getParameter;

        Notifications(Connection c) throws SQLException, ReflectiveOperationException {
            Class<?> pgConnection = Class.forName("org.postgresql.PGConnection");
            this.connection = c.unwrap(pgConnection);
            this.getNotifications = pgConnection.getMethod("getNotifications", int.class);
            this.getParameter = Class.forName("org.postgresql.PGNotification").getMethod("getParameter");
        }

        /** The payloads that arrive within {@code timeoutMillis} (an empty list if none). */
        List<String> await(int timeoutMillis) throws SQLException, ReflectiveOperationException {
            Object[] received;
            try {
                received = (Object[]) getNotifications.invoke(connection, timeoutMillis);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof SQLException sql) {
                    throw sql;
                }
                throw e;
            }
            List<String> payloads = new ArrayList<>();
            if (received != null) {
                for (Object n : received) {
                    payloads.add((String) getParameter.invoke(n));
                }
            }
            return payloads;
        }
    }
}
