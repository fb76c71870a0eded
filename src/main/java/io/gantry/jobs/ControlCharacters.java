package io.gantry.jobs;

/**
 * Control characters (NUL, newlines, escapes, DEL...) in names and paths: refused at submission,
 * since a name with a newline forges lines in squeue's and sacct's output, a path with NUL is cut
 * short by the agent's system calls, and an escape sequence rewrites the terminal that shows it.
 */
final class ControlCharacters {

    private ControlCharacters() {
    }

    static boolean in(String value) {
        return value != null && value.codePoints().anyMatch(ControlCharacters::isControl);
    }

    /** The first control character, written as users can read it ({@code \n}, {@code \x00}). */
    static String first(String value) {
        int c = value.codePoints().filter(ControlCharacters::isControl).findFirst().orElseThrow();
        return switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            case 0 -> "NUL";
            default -> String.format("\\x%02x", c);
        };
    }

    /** C0, DEL and C1 controls, plus the Unicode line and paragraph separators. */
    private static boolean isControl(int c) {
        return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
    }
}
