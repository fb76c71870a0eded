package io.gantry.noded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A Unix account on this node, resolved through NSS as Slurm does ({@code getent passwd} for the
 * uid, primary gid and home, {@code id -G} for every group it belongs to), so accounts from LDAP or
 * SSSD work as well as {@code /etc/passwd}.
 */
record UnixAccount(String name, long uid, long gid, List<Long> groups, String home, String shell) {

    /** What a Unix user name may look like (POSIX portable names, plus what useradd accepts). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}\\$?");

    /** The account named {@code name}, or empty when this node has none. */
    static Optional<UnixAccount> lookup(String name) throws IOException {
        if (name == null || !NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        String passwd = run("getent", "passwd", name);
        if (passwd == null || passwd.isBlank()) {
            return Optional.empty();
        }
        String[] f = passwd.strip().split(":", -1);
        if (f.length < 7 || !f[0].equals(name)) {
            return Optional.empty();
        }
        long uid;
        long gid;
        try {
            uid = Long.parseLong(f[2]);
            gid = Long.parseLong(f[3]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        List<Long> groups = new ArrayList<>();
        groups.add(gid);
        String ids = run("id", "-G", "--", name);
        if (ids != null) {
            for (String g : ids.strip().split("\\s+")) {
                try {
                    long group = Long.parseLong(g);
                    if (!groups.contains(group)) {
                        groups.add(group);
                    }
                } catch (NumberFormatException e) {
                    // not a group id
                }
            }
        }
        return Optional.of(new UnixAccount(name, uid, gid, List.copyOf(groups), f[5], f[6]));
    }

    /** The account the agent itself runs as. */
    static UnixAccount current() throws IOException {
        String name = run("id", "-un");
        Optional<UnixAccount> account = name == null ? Optional.empty() : lookup(name.strip());
        if (account.isPresent()) {
            return account.get();
        }
        String uid = run("id", "-u");
        String gid = run("id", "-g");
        if (uid == null || gid == null) {
            throw new IOException("cannot tell which user the agent runs as (id -u failed)");
        }
        long u = Long.parseLong(uid.strip());
        return new UnixAccount(name == null ? uid.strip() : name.strip(), u, Long.parseLong(gid.strip()),
                List.of(Long.parseLong(gid.strip())), System.getProperty("user.home"), "/bin/sh");
    }

    boolean root() {
        return uid == 0;
    }

    /** What a command prints, or null when it fails (exit status not 0). */
    private static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readNBytes(64 * 1024);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not answer within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command[0]);
        }
        return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : null;
    }
}
