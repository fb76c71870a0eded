package io.gantry.control;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Where the leader answers. The controller that becomes the leader writes its URL in the store
 * ({@code control_leader}); followers read it (at most once a second) to forward writes and to tell
 * agents where to go.
 */
@Component
public class LeaderDirectory {

    private static final Logger log = LoggerFactory.getLogger(LeaderDirectory.class);
    private static final long CACHE_NANOS = 1_000_000_000L;

    private final JdbcTemplate jdbc;
    private final ControlProperties properties;
    private final Clock clock;
    private volatile String ownUrl;
    private volatile String cachedLeader;
    private volatile long cachedAt;

    LeaderDirectory(JdbcTemplate jdbc, ControlProperties properties, Clock clock) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.clock = clock;
        if (properties.advertiseUrl() != null && !properties.advertiseUrl().isBlank()) {
            ownUrl = strip(properties.advertiseUrl());
        }
    }

    @EventListener
    void on(WebServerInitializedEvent event) {
        String namespace = event.getApplicationContext().getServerNamespace();
        if (ownUrl == null && (namespace == null || "server".equals(namespace))) {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
            ownUrl = "http://" + host + ":" + event.getWebServer().getPort();
        }
    }

    /** This controller's own URL, once its web server listens; null before. */
    public String ownUrl() {
        return ownUrl;
    }

    /** Records this controller as the leader; false while its own URL is not known yet. */
    public boolean advertise() {
        String url = ownUrl;
        if (url == null) {
            return false;
        }
        OffsetDateTime now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        if (jdbc.update("UPDATE control_leader SET url = ?, since = ? WHERE id = 1", url, now) == 0) {
            jdbc.update("INSERT INTO control_leader (id, url, since) VALUES (1, ?, ?)", url, now);
        }
        cachedLeader = url;
        cachedAt = System.nanoTime();
        log.info("Advertised this controller as the leader at {}", url);
        return true;
    }

    /** The leader's URL as the store last said (read at most once a second); null when none has led yet. */
    public String leaderUrl() {
        long now = System.nanoTime();
        if (now - cachedAt < CACHE_NANOS && cachedLeader != null) {
            return cachedLeader;
        }
        List<String> urls = jdbc.queryForList("SELECT url FROM control_leader WHERE id = 1", String.class);
        cachedLeader = urls.isEmpty() ? null : urls.get(0);
        cachedAt = now;
        return cachedLeader;
    }

    /** Forgets the cached leader, e.g. after it failed to answer. */
    public void forget() {
        cachedAt = 0;
    }

    private static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
