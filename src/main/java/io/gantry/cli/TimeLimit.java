package io.gantry.cli;

/** Slurm's time forms for {@code scontrol update TimeLimit=}: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, UNLIMITED. */
final class TimeLimit {

    private TimeLimit() {
    }

    static long seconds(String text) {
        String t = text.strip();
        if (t.equalsIgnoreCase("UNLIMITED") || t.equalsIgnoreCase("INFINITE")) {
            return 0;
        }
        try {
            long days = 0;
            int dash = t.indexOf('-');
            if (dash >= 0) {
                days = Long.parseLong(t.substring(0, dash));
                String[] p = t.substring(dash + 1).split(":");
                long h = Long.parseLong(p[0]);
                long m = p.length > 1 ? Long.parseLong(p[1]) : 0;
                long s = p.length > 2 ? Long.parseLong(p[2]) : 0;
                return days * 86_400 + h * 3_600 + m * 60 + s;
            }
            String[] p = t.split(":");
            return switch (p.length) {
                case 1 -> Long.parseLong(p[0]) * 60;
                case 2 -> Long.parseLong(p[0]) * 60 + Long.parseLong(p[1]);
                case 3 -> Long.parseLong(p[0]) * 3_600 + Long.parseLong(p[1]) * 60 + Long.parseLong(p[2]);
                default -> throw new NumberFormatException(t);
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid TimeLimit value: " + text);
        }
    }
}
