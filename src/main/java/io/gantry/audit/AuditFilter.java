package io.gantry.audit;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

import io.gantry.api.GantryException;

/** {@code GET /audit}'s query: each part narrows the list; null leaves it open. */
record AuditFilter(String actor, AuditEntity entity, String key, Instant since, Instant until) {

    private static final int DATE_LENGTH = "2026-01-31".length();
    /** What every store's timestamps hold. */
    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

    static AuditFilter of(String actor, String entity, String key, String since, String until) {
        AuditEntity type = blank(entity) ? null : AuditEntity.parse(entity).orElseThrow(() -> GantryException
                .badRequest("entity", "unknown entity type '" + entity + "'; use one of "
                        + String.join(", ", java.util.Arrays.stream(AuditEntity.values()).map(AuditEntity::text)
                                .toList())));
        return new AuditFilter(blank(actor) ? null : actor, type, blank(key) ? null : key, instant("since", since),
                instant("until", until));
    }

    private static Instant instant(String field, String text) {
        if (blank(text)) {
            return null;
        }
        // An unencoded '+' in an offset arrives as a space.
        String value = text.strip().replace(' ', '+');
        try {
            Instant instant = value.length() == DATE_LENGTH
                    ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
                    : OffsetDateTime.parse(value).toInstant();
            if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
                throw GantryException.badRequest(field, "must be between years 1 and 9999, was '" + value + "'");
            }
            return instant;
        } catch (DateTimeParseException e) {
            throw GantryException.badRequest(field, "must be an ISO-8601 time with an offset, e.g. "
                    + "2026-01-31T12:00:00Z, or a date (midnight UTC), e.g. 2026-01-31");
        }
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }
}
