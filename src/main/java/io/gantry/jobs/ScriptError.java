package io.gantry.jobs;

/**
 * One {@code #SBATCH} directive that cannot be used.
 * @param line the 1-based line of the script
 * @param option the option as the script spells it ({@code -N}, {@code --mem}), or the
 *     offending word when it is not an option
 * @param message what is wrong, for the user
 */
public record ScriptError(int line, String option, String message) {

    @Override
    public String toString() {
        return "line " + this.line + ": " + this.option + ": " + this.message;
    }

}
