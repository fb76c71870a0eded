package io.gantry.audit;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The kinds of thing an audited change may be made to; {@code GET /audit?entity=} takes their lower-case names. */
public enum AuditEntity {
    USER, ACCOUNT, ASSOCIATION, QOS, COORDINATORS, RESERVATION, NODE, JOB, JOIN_TOKEN, PARTITION;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<AuditEntity> parse(String text) {
        return Arrays.stream(values()).filter(e -> e.text().equalsIgnoreCase(text.strip())).findFirst();
    }
}
