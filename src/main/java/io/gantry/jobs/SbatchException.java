package io.gantry.jobs;

import java.util.List;
import java.util.stream.Collectors;

/** A script whose {@code #SBATCH} directives cannot all be used; every bad line is listed. */
public final class SbatchException extends IllegalArgumentException {

    private final transient List<ScriptError> errors;

    SbatchException(List<ScriptError> errors) {
        super(errors.stream().map(ScriptError::toString).collect(Collectors.joining("; ")));
        this.errors = List.copyOf(errors);
    }

    /** The errors in script order, never empty. */
    public List<ScriptError> errors() {
        return this.errors;
    }

}
