package io.gantry.audit;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import tools.jackson.databind.json.JsonMapper;

/**
 * The audit trail: services record each change an ADMIN, OPERATOR or coordinator makes, inside the
 * transaction of the change (so a refused or failed change leaves no row), and ADMINs read it back.
 * Snapshots are whatever view of the entity the caller passes, written as JSON; callers pass views
 * that carry no password hash, script or environment.
 */
@Service
public class Audit {

    private static final int MAX_ADDRESS = 64;
    private static final int MAX_KEY = 256;
    /** The snapshot columns' size. */
    private static final int MAX_SNAPSHOT = 1_048_576;

    private final JdbcTemplate jdbc;
    private final JsonMapper json;
    private final Clock clock;

    Audit(JdbcTemplate jdbc, JsonMapper json, Clock clock) {
        this.jdbc = jdbc;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Records one change. Must run inside the transaction that makes it: the row commits or rolls
     * back with the change. {@code before} is null for a create, {@code after} for a delete.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void record(Actor actor, AuditAction action, AuditEntity entity, String key, Object before, Object after) {
        jdbc.update("INSERT INTO audit_events (at, actor, actor_role, action, entity_type, entity_key, before_json, "
                + "after_json, client_address) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                OffsetDateTime.ofInstant(clock.instant().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC),
                actor.username(), actor.authority().name(), action.text(), entity.text(), cut(key, MAX_KEY),
                toJson(before), toJson(after), clientAddress());
    }

    /** One page of the trail, newest first, narrowed by {@code filter}. */
    @Transactional(readOnly = true)
    public PageResponse<AuditEvent> list(AuditFilter filter, PageRequest page) {
        StringBuilder where = new StringBuilder(" WHERE 1 = 1");
        List<Object> args = new ArrayList<>();
        if (filter.actor() != null) {
            where.append(" AND actor = ?");
            args.add(filter.actor());
        }
        if (filter.entity() != null) {
            where.append(" AND entity_type = ?");
            args.add(filter.entity().text());
        }
        if (filter.key() != null) {
            where.append(" AND entity_key = ?");
            args.add(filter.key());
        }
        if (filter.since() != null) {
            where.append(" AND at >= ?");
            args.add(OffsetDateTime.ofInstant(filter.since(), ZoneOffset.UTC));
        }
        if (filter.until() != null) {
            where.append(" AND at < ?");
            args.add(OffsetDateTime.ofInstant(filter.until(), ZoneOffset.UTC));
        }
        Long total = jdbc.queryForObject("SELECT COUNT(*) FROM audit_events" + where, Long.class, args.toArray());
        List<Object> pageArgs = new ArrayList<>(args);
        pageArgs.add(page.size());
        pageArgs.add(page.offset());
        List<AuditEvent> items = jdbc.query("SELECT * FROM audit_events" + where
                + " ORDER BY at DESC, id DESC LIMIT ? OFFSET ?", (rs, n) -> event(rs), pageArgs.toArray());
        return new PageResponse<>(items, page.page(), page.size(), total == null ? 0 : total);
    }

    private AuditEvent event(ResultSet rs) throws SQLException {
        Instant at = rs.getObject("at", OffsetDateTime.class).toInstant();
        return new AuditEvent(rs.getLong("id"), at, rs.getString("actor"), rs.getString("actor_role"),
                rs.getString("action"), rs.getString("entity_type"), rs.getString("entity_key"),
                fromJson(rs.getString("before_json")), fromJson(rs.getString("after_json")),
                rs.getString("client_address"));
    }

    /** The snapshot as JSON; one too large for its column is replaced by a note of its size, so the change still commits. */
    private String toJson(Object snapshot) {
        if (snapshot == null) {
            return null;
        }
        String text = json.writeValueAsString(snapshot);
        return text.length() <= MAX_SNAPSHOT ? text : "{\"truncated\":true,\"chars\":" + text.length() + "}";
    }

    private Object fromJson(String text) {
        return text == null ? null : json.readValue(text, Object.class);
    }

    /** The address the change came from, when it came over HTTP. */
    private static String clientAddress() {
        if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes) {
            HttpServletRequest request = attributes.getRequest();
            return cut(request.getRemoteAddr(), MAX_ADDRESS);
        }
        return null;
    }

    private static String cut(String text, int max) {
        return text == null || text.length() <= max ? text : text.substring(0, max);
    }
}
