package io.gantry.engine;

/** A time limit in Slurm's {@code -t/--time} syntax that cannot be read. */
public final class SlurmTimeException extends IllegalArgumentException {

    private final String input;

    SlurmTimeException(String input, String problem) {
        super("Invalid time limit '" + input + "': " + problem);
        this.input = input;
    }

    /** The rejected text, exactly as given. */
    public String input() {
        return this.input;
    }

}
