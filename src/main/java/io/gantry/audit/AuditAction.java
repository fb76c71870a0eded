package io.gantry.audit;

import java.util.Locale;

/**
 * What an audited change did; shown and filtered in lower case. {@code JOIN} is an agent taking a node
 * name an agent held before, with a new credential; {@code JOIN_REFUSED} such a join refused (recorded
 * although nothing changed: it is how a stolen join token shows); {@code ROTATE} a new join token.
 */
public enum AuditAction {
    CREATE, UPDATE, DELETE, CANCEL, HOLD, RELEASE, REQUEUE, REVOKE, SIGNAL, ROTATE, JOIN, JOIN_REFUSED, SUSPEND, RESUME;

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
