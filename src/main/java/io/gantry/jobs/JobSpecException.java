package io.gantry.jobs;

/**
 * A job specification expression (array indexes, a dependency list, a memory size, a begin
 * time) that cannot be read. The message names the input and, where there is one, the 0-based
 * position of the mistake.
 */
public final class JobSpecException extends IllegalArgumentException {

    private final String input;

    private final String problem;

    JobSpecException(String what, String input, String problem) {
        super("Invalid " + what + " '" + input + "': " + problem);
        this.input = input;
        this.problem = problem;
    }

    /** The rejected text, exactly as given. */
    public String input() {
        return this.input;
    }

    /** The problem alone, without the input. */
    public String problem() {
        return this.problem;
    }

}
