package io.gantry.steps;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.gantry.noded.protocol.StepProtocol;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.InputText;

/**
 * What a step request may hold, checked before anything of it is stored or sent to a node: what
 * Linux's {@code execve} takes (every argument and {@code NAME=value} at most MAX_ARG_STRLEN, all of
 * them together within ARG_MAX less room for the variables Gantry adds, none with a NUL), an
 * absolute working directory, and short texts elsewhere. A request past these would only fail on the
 * node, after its agent spent seconds on it; past them by far it would stall the agent.
 */
final class StepBounds {

    /** Enough to show what is wrong; a request with 100,000 bad strings is not described 100,000 times. */
    private static final int MAX_ERRORS = 10;

    private StepBounds() {
    }

    /** The request's faults, each naming its field ({@code argv[2]}, {@code environment.PATH}); empty when none. */
    static List<FieldError> check(StepRequest r) {
        Errors errors = new Errors();
        long execBytes = 0;
        List<String> argv = r.argv();
        if (argv == null || argv.isEmpty() || argv.get(0) == null || argv.get(0).isBlank()) {
            errors.add("argv", "is required: the command and its arguments");
        } else if (argv.size() > StepProtocol.MAX_ARGV) {
            errors.add("argv", String.format("holds %,d strings; at most %,d are allowed", argv.size(),
                    StepProtocol.MAX_ARGV));
        } else {
            for (int i = 0; i < argv.size() && !errors.full(); i++) {
                String field = "argv[" + i + "]";
                String arg = argv.get(i);
                if (arg == null) {
                    errors.add(field, "must not be null");
                    continue;
                }
                execBytes += StepProtocol.execBytes(arg);
                execString(errors, field, arg, "an argument");
            }
        }
        Map<String, String> environment = r.environment();
        if (environment != null) {
            if (environment.size() > StepProtocol.MAX_ENVIRONMENT) {
                errors.add("environment", String.format("holds %,d variables; at most %,d are allowed",
                        environment.size(), StepProtocol.MAX_ENVIRONMENT));
            } else {
                for (Map.Entry<String, String> e : environment.entrySet()) {
                    if (errors.full()) {
                        break;
                    }
                    String name = e.getKey();
                    String field = "environment." + (name == null ? "null" : InputText.shown(name));
                    if (name == null || name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0) {
                        errors.add(field, "is no variable name: it must be non-empty, without '=' or NUL");
                        continue;
                    }
                    if (e.getValue() == null) {
                        continue; // not passed on (see StepService.exported)
                    }
                    String variable = name + "=" + e.getValue();
                    execBytes += StepProtocol.execBytes(variable);
                    execString(errors, field, variable, "a variable (NAME=value)");
                }
            }
        }
        if (r.export() != null) {
            execString(errors, "export", r.export(), "an option");
            for (String item : r.export().split(",")) {
                if (item.indexOf('=') > 0) {
                    execBytes += StepProtocol.execBytes(item.trim());
                }
            }
        }
        if (execBytes > StepProtocol.MAX_STEP_EXEC_BYTES) {
            errors.add(environment == null || environment.isEmpty() ? "argv" : "environment", String.format(
                    "argv and environment take %,d bytes as execve counts them (each string, its NUL and its "
                            + "pointer); at most %,d are allowed (Linux's ARG_MAX of %,d less room for the "
                            + "variables Gantry sets)", execBytes, StepProtocol.MAX_STEP_EXEC_BYTES,
                    StepProtocol.ARG_MAX));
        }
        if (r.workdir() != null) {
            if (r.workdir().indexOf('\0') >= 0) {
                errors.add("workdir", "must not hold a NUL character: no path can");
            } else if (!r.workdir().startsWith("/")) {
                errors.add("workdir", "must be an absolute path (it is '" + InputText.shown(r.workdir())
                        + "'): a relative one means nothing on the step's nodes");
            } else if (StepProtocol.utf8Length(r.workdir()) > StepProtocol.MAX_PATH_BYTES) {
                errors.add("workdir", String.format("is %,d bytes long; a path is at most %,d",
                        StepProtocol.utf8Length(r.workdir()), StepProtocol.MAX_PATH_BYTES));
            }
        }
        if (r.name() != null) {
            if (r.name().length() > StepProtocol.MAX_NAME) {
                errors.add("name", String.format("is %,d characters long; at most %,d are allowed",
                        r.name().length(), StepProtocol.MAX_NAME));
            } else if (r.name().codePoints().anyMatch(Character::isISOControl)) {
                errors.add("name", "must not hold control characters (it is '" + InputText.shown(r.name()) + "')");
            }
        }
        if (r.nodelist() != null && r.nodelist().length() > StepProtocol.MAX_NODELIST) {
            errors.add("nodelist", String.format("is %,d characters long; at most %,d are allowed",
                    r.nodelist().length(), StepProtocol.MAX_NODELIST));
        }
        if (r.mpi() != null && r.mpi().length() > StepProtocol.MAX_MPI) {
            errors.add("mpi", String.format("is %,d characters long; at most %,d are allowed", r.mpi().length(),
                    StepProtocol.MAX_MPI));
        }
        terminalSize(errors, r.rows(), r.cols());
        return errors.list;
    }

    /** A terminal's size: both sides or neither, each from 1 to {@link StepProtocol#MAX_TERMINAL_SIDE}. */
    static void terminalSize(Errors errors, Integer rows, Integer cols) {
        if ((rows == null) != (cols == null)) {
            errors.add(rows == null ? "rows" : "cols", "must be given with " + (rows == null ? "cols" : "rows")
                    + ": a terminal's size is both");
        }
        side(errors, "rows", rows);
        side(errors, "cols", cols);
    }

    private static void side(Errors errors, String field, Integer value) {
        if (value != null && (value < 1 || value > StepProtocol.MAX_TERMINAL_SIDE)) {
            errors.add(field, "must be from 1 to " + StepProtocol.MAX_TERMINAL_SIDE + " (it is " + value + ")");
        }
    }

    /** One string the kernel gets in {@code execve}: no NUL, at most MAX_ARG_STRLEN with its NUL. */
    private static void execString(Errors errors, String field, String text, String what) {
        if (text.indexOf('\0') >= 0) {
            errors.add(field, "holds a NUL character at " + text.indexOf('\0') + ", which " + what
                    + " cannot hold (the kernel would cut it there)");
            return;
        }
        long bytes = StepProtocol.utf8Length(text) + 1;
        if (bytes > StepProtocol.MAX_ARG_STRLEN) {
            errors.add(field, String.format("is %,d bytes long; the kernel takes at most %,d for %s", bytes - 1,
                    StepProtocol.MAX_ARG_STRLEN - 1, what));
        }
    }

    static final class Errors {
        final List<FieldError> list = new ArrayList<>();

        void add(String field, String message) {
            if (list.size() < MAX_ERRORS) {
                list.add(new FieldError(field, message));
            }
        }

        boolean full() {
            return list.size() >= MAX_ERRORS;
        }
    }
}
