package io.gantry.engine;

/**
 * A hostlist expression or host name that cannot be read. The message names the 0-based
 * character position and the problem, so a user can find the mistake in a long node list.
 */
public final class HostlistException extends IllegalArgumentException {

    private final int position;

    private final String problem;

    HostlistException(String text, int position, String problem) {
        super("Invalid hostlist '" + text + "' at position " + position + ": " + problem);
        this.position = position;
        this.problem = problem;
    }

    /** The 0-based index into the rejected text where the problem was found. */
    public int position() {
        return this.position;
    }

    /** The problem alone, without the text and position. */
    public String problem() {
        return this.problem;
    }

}
