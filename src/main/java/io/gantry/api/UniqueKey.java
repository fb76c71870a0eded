package io.gantry.api;

import java.sql.SQLException;
import java.util.function.Supplier;

import org.springframework.dao.DataIntegrityViolationException;

/**
 * A create is an insert, and the store's unique keys (a primary key or a UNIQUE constraint) decide
 * which of two writers of one name wins: the other is refused by the store, never merged onto the
 * winner's row. This tells that refusal apart from the store's other integrity errors.
 */
public final class UniqueKey {

    /** SQLSTATE unique_violation: PostgreSQL's and H2's answer to a taken key. */
    private static final String UNIQUE_VIOLATION = "23505";

    private UniqueKey() {
    }

    /** Whether {@code e} is the store refusing a row whose unique key another row already has. */
    public static boolean taken(Throwable e) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof SQLException sql) {
                // A batched insert reports the row's own error as the batch's next exception.
                for (SQLException s = sql; s != null && depth < 32; s = s.getNextException(), depth++) {
                    if (UNIQUE_VIOLATION.equals(s.getSQLState())) {
                        return true;
                    }
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * Runs {@code insert}, which must flush; a taken key is answered with {@code conflict}, a 409 that
     * names what exists. The exception rolls the whole transaction back, as it must: PostgreSQL
     * refuses every later statement of a transaction one of whose inserts was refused.
     */
    public static <T> T insert(Supplier<T> insert, Supplier<GantryException> conflict) {
        try {
            return insert.get();
        } catch (DataIntegrityViolationException e) {
            if (taken(e)) {
                throw conflict.get();
            }
            throw e;
        }
    }
}
