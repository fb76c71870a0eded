package io.gantry.jobs;

import java.util.List;
import java.util.stream.Collectors;

/** A script whose {@code #SBATCH} directives cannot all be used; every bad line is listed. */
public final class SbatchException extends IllegalArgumentException {

    private final transient List<ScriptError> errors;
    private final transient SbatchOptions usable;

    SbatchException(List<ScriptError> errors) {
        this(errors, null);
    }

    SbatchException(List<ScriptError> errors, SbatchOptions usable) {
        super(errors.stream().map(ScriptError::toString).collect(Collectors.joining("; ")));
        this.errors = List.copyOf(errors);
        this.usable = usable;
    }

    /** What the script's other (good) directives ask for; null when that cannot be told. */
    public SbatchOptions usable() {
        return this.usable;
    }

    /** The errors in script order, never empty. */
    public List<ScriptError> errors() {
        return this.errors;
    }

}
