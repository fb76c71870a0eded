package io.gantry.audit;

import java.util.Locale;

/** What an audited change did; shown and filtered in lower case. */
public enum AuditAction {
    CREATE, UPDATE, DELETE, CANCEL, HOLD, RELEASE, REQUEUE, REVOKE, SIGNAL;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
