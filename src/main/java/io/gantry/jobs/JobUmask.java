package io.gantry.jobs;

/**
 * The umask a job runs with: 3 or 4 octal digits as the shell writes it ({@code 022},
 * {@code 0027}), the way sbatch passes the submitting shell's umask in {@code SLURM_UMASK}.
 */
final class JobUmask {

    /** The environment variable sbatch fills with the user's umask. */
    static final String VARIABLE = "SLURM_UMASK";

    private JobUmask() {
    }

    /**
     * Checks a umask and returns it as 4 digits ({@code 0022}).
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static String parse(String value) {
        if (value == null || value.length() < 3 || value.length() > 4
                || !value.chars().allMatch(c -> c >= '0' && c <= '7')
                || (value.length() == 4 && value.charAt(0) != '0')) {
            throw new IllegalArgumentException("'" + printable(value) + "' is not a umask: write 3 or 4 octal digits, "
                    + "as in 0022 or 027");
        }
        return value.length() == 3 ? "0" + value : value;
    }

    private static String printable(String value) {
        if (value == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        value.codePoints().limit(16).forEach(c -> out.append(Character.isISOControl(c) ? "\\x" + Integer.toHexString(c) : Character.toString(c)));
        return out.toString();
    }
}
