package io.gantry.noded;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sends signals by name to processes with {@code kill(1)} (the JDK sends only TERM and KILL), and
 * reads Slurm's {@code --signal=[{R|B}:]SIG[@seconds]}.
 */
final class Signals {

    private static final Map<String, Integer> NUMBERS = Map.ofEntries(Map.entry("HUP", 1), Map.entry("INT", 2),
            Map.entry("QUIT", 3), Map.entry("ILL", 4), Map.entry("TRAP", 5), Map.entry("ABRT", 6),
            Map.entry("BUS", 7), Map.entry("FPE", 8), Map.entry("STKFLT", 16), Map.entry("CHLD", 17),
            Map.entry("TTIN", 21), Map.entry("TTOU", 22), Map.entry("SYS", 31), Map.entry("KILL", 9), Map.entry("USR1", 10),
            Map.entry("SEGV", 11), Map.entry("USR2", 12), Map.entry("PIPE", 13), Map.entry("ALRM", 14),
            Map.entry("TERM", 15), Map.entry("CONT", 18), Map.entry("STOP", 19), Map.entry("TSTP", 20),
            Map.entry("URG", 23), Map.entry("XCPU", 24), Map.entry("XFSZ", 25), Map.entry("VTALRM", 26),
            Map.entry("PROF", 27), Map.entry("WINCH", 28), Map.entry("IO", 29), Map.entry("PWR", 30));

    private Signals() {
    }

    /** A job's warning signal: sent {@code secondsBefore} its time limit, to its batch shell only when {@code batchOnly}. */
    record Warning(boolean batchOnly, String signal, long secondsBefore) {
    }

    /**
     * Reads {@code [{R|B}:]SIG[@seconds]} (names with or without {@code SIG}, or numbers; 60 s when no
     * time is given), or null for null or text it cannot read.
     */
    static Warning parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String s = text.strip();
        boolean batchOnly = false;
        int colon = s.indexOf(':');
        if (colon > 0) {
            String flags = s.substring(0, colon).toUpperCase(Locale.ROOT);
            if (!flags.matches("[RB]+")) {
                return null;
            }
            batchOnly = flags.contains("B");
            s = s.substring(colon + 1);
        }
        long seconds = 60;
        int at = s.indexOf('@');
        if (at >= 0) {
            try {
                seconds = Long.parseLong(s.substring(at + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            s = s.substring(0, at);
        }
        String name = s.toUpperCase(Locale.ROOT);
        if (name.startsWith("SIG")) {
            name = name.substring(3);
        }
        if (name.matches("[0-9]{1,2}")) {
            int n = Integer.parseInt(name);
            if (n < 1 || n > 64) {
                return null;
            }
            return new Warning(batchOnly, name, seconds);
        }
        return NUMBERS.containsKey(name) && seconds >= 0 ? new Warning(batchOnly, name, seconds) : null;
    }

    /** Sends {@code signal} (a name like TERM or a number) to each of {@code pids}; gone ones are skipped. */
    static void send(Collection<Long> pids, String signal) {
        List<String> command = new ArrayList<>(List.of("kill", "-s", signal, "--"));
        for (long pid : pids) {
            if (pid > 1 && pid != ProcessHandle.current().pid()) {
                command.add(Long.toString(pid));
            }
        }
        if (command.size() == 4) {
            return;
        }
        if (signal.matches("[0-9]+")) {
            command.set(1, "-" + signal);
            command.remove(2);
        }
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            // nothing to signal with; the caller falls back to the JDK
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
