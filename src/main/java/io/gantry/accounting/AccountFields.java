package io.gantry.accounting;

import io.gantry.api.GantryException.FieldError;
import io.gantry.api.GantryException;
import java.util.List;
import java.util.regex.Pattern;

/** The checks {@link AccountingService} makes of the fields of account, association and QOS requests. */
final class AccountFields {

    /** Names of accounts and QOS: what sacctmgr accepts, and safe in comma lists. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    private AccountFields() {
    }

    static Integer limit(String field, int value, List<FieldError> errors) {
        if (value < -1) {
            errors.add(new FieldError(field, "must be 0 or more, or -1 to clear it; was " + value));
            return null;
        }
        return value == -1 ? null : value;
    }

    /** A number of seconds that -1 clears. */
    static void seconds(String field, Long value, List<FieldError> errors, java.util.function.Consumer<Long> set) {
        if (value != null && value < -1) {
            errors.add(new FieldError(field, "must be 0 or more, or -1 to clear it; was " + value));
        } else if (value != null) {
            set.accept(value == -1 ? null : value);
        }
    }

    static void tres(String field, String text, List<FieldError> errors,
            java.util.function.Consumer<String> set) {
        try {
            set.accept(TresText.normalize(field, text));
        } catch (GantryException e) {
            errors.addAll(e.errors());
        }
    }

    static int shares(Integer given, int fallback) {
        if (given == null) {
            return fallback;
        }
        if (given < 1) {
            throw GantryException.badRequest("shares", "must be at least 1, was " + given);
        }
        return given;
    }

    static void checkName(String field, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw GantryException.badRequest(field, "must match " + NAME.pattern()
                    + " (letters, digits, _ . -; at most 64 characters)");
        }
    }

    static void throwIfAny(List<FieldError> errors) {
        if (!errors.isEmpty()) {
            throw GantryException.invalid(errors);
        }
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
