package io.gantry.support;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Unix users and groups tests make to run jobs as their owners. Test classes run side by side, in one
 * JVM (the integration tests) or two (the unit tests' forks), and {@code useradd}, {@code userdel},
 * {@code groupadd} and {@code groupdel} each lock {@code /etc/passwd} and {@code /etc/group}, failing at once
 * ("cannot lock /etc/passwd") rather than waiting when another holds the lock: so they run one at a time
 * across processes, under util-linux's {@code flock} on {@link #LOCK}.
 */
public final class UnixAccounts {

    /** The file every test process locks around a change to the users and groups. */
    private static final String LOCK = "/tmp/gantry-test-unix-accounts.lock";

    private UnixAccounts() {
    }

    /** {@code useradd options... name}: fails the test when it fails. */
    public static void addUser(String... optionsThenName) throws IOException, InterruptedException {
        change("useradd", optionsThenName);
    }

    /** {@code groupadd name}: fails the test when it fails. */
    public static void addGroup(String name) throws IOException, InterruptedException {
        change("groupadd", name);
    }

    /**
     * Kills {@code user}'s processes and removes it, with its home when {@code withHome}; quietly, as a
     * test's clean-up does (a user already gone is no failure).
     */
    public static void removeUser(String user, boolean withHome) throws IOException, InterruptedException {
        new ProcessBuilder("pkill", "-KILL", "-u", user).start().waitFor(10, TimeUnit.SECONDS);
        quietly(withHome ? List.of("userdel", "-r", user) : List.of("userdel", "-f", user));
    }

    /** {@code groupdel name}, quietly. */
    public static void removeGroup(String name) throws IOException, InterruptedException {
        quietly(List.of("groupdel", name));
    }

    private static void change(String tool, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tool));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(locked(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + output.strip());
        }
    }

    private static void quietly(List<String> command) throws IOException, InterruptedException {
        new ProcessBuilder(locked(command)).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor(30, TimeUnit.SECONDS);
    }

    /** {@code flock LOCK command...}: waits for the other test processes' changes to end first. */
    private static List<String> locked(List<String> command) {
        List<String> locked = new ArrayList<>(List.of("flock", LOCK));
        locked.addAll(command);
        return locked;
    }
}
