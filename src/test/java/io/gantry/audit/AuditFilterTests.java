package io.gantry.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.gantry.api.GantryException;

/** {@code GET /audit}'s query: times as sent by hand or by scripts, and a 400 naming each bad part. */
class AuditFilterTests {

    @Test
    void timesMayBeInstantsOffsetsOrDates() {
        AuditFilter filter = AuditFilter.of(" alice ", "Account", "physics", "2026-12-01", "2026-12-01T10:00:00 01:00");
        assertThat(filter.entity()).isEqualTo(AuditEntity.ACCOUNT);
        assertThat(filter.since()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(filter.until()).as("an unencoded '+' arrives as a space").isEqualTo(Instant.parse("2026-12-01T09:00:00Z"));
        assertThat(AuditFilter.of(null, "", " ", null, null)).isEqualTo(new AuditFilter(null, null, null, null, null));
    }

    @Test
    void aBadPartIsA400NamingIt() {
        assertThatThrownBy(() -> AuditFilter.of(null, null, null, "last week", null))
                .isInstanceOfSatisfying(GantryException.class, e -> assertThat(e.errors().get(0).field()).isEqualTo("since"));
        assertThatThrownBy(() -> AuditFilter.of(null, null, null, null, "2026-13-01"))
                .isInstanceOfSatisfying(GantryException.class, e -> assertThat(e.errors().get(0).field()).isEqualTo("until"));
        assertThatThrownBy(() -> AuditFilter.of(null, null, null, "+999999999-12-31T23:59:59Z", null))
                .isInstanceOfSatisfying(GantryException.class, e -> assertThat(e.errors().get(0).field()).isEqualTo("since"));
        assertThatThrownBy(() -> AuditFilter.of(null, "spaceship", null, null, null))
                .isInstanceOfSatisfying(GantryException.class, e -> {
                    assertThat(e.errors().get(0).field()).isEqualTo("entity");
                    assertThat(e.getMessage()).contains("reservation");
                });
    }
}
