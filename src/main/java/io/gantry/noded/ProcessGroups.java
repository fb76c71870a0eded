package io.gantry.noded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A job runs in its own process group (started through {@code setsid}), so stopping it means
 * signalling the whole group: the script and everything it started in the background. The JDK can
 * signal one process only, so groups are signalled with {@code kill -s SIG -- -PGID} and looked up
 * in {@code /proc}. The agent's own group is never signalled.
 */
final class ProcessGroups {

    private static final Path PROC = Path.of("/proc");

    private ProcessGroups() {
    }

    /** One process's ids and state, from {@code /proc/<pid>/stat}. */
    record Stat(long pid, char state, long pgid, long session) {
    }

    static OptionalLong pgidOf(long pid) {
        return stat(pid).map(s -> OptionalLong.of(s.pgid())).orElse(OptionalLong.empty());
    }

    static java.util.Optional<Stat> stat(long pid) {
        try {
            String text = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
            // the command name (field 2) is in parentheses and may itself hold spaces or parentheses
            String[] f = text.substring(text.lastIndexOf(')') + 2).split(" ");
            return java.util.Optional.of(new Stat(pid, f[0].charAt(0), Long.parseLong(f[2]), Long.parseLong(f[3])));
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /** The live (not zombie) processes of group {@code pgid}. */
    static List<Stat> members(long pgid) {
        List<Stat> members = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, p -> isNumber(p.getFileName().toString()))) {
            for (Path dir : dirs) {
                stat(Long.parseLong(dir.getFileName().toString()))
                        .filter(s -> s.pgid() == pgid && s.state() != 'Z' && s.state() != 'X')
                        .ifPresent(members::add);
            }
        } catch (IOException e) {
            // no /proc: nothing can be found
        }
        return members;
    }

    static boolean alive(long pgid) {
        return !members(pgid).isEmpty();
    }

    /** Whether any process of the group has {@code variable} in its environment. */
    static boolean anyMemberHasEnvironment(long pgid, String variable) {
        byte[] wanted = (variable + "\0").getBytes(StandardCharsets.UTF_8);
        for (Stat member : members(pgid)) {
            try {
                byte[] environ = Files.readAllBytes(PROC.resolve(Long.toString(member.pid())).resolve("environ"));
                if (indexOf(environ, wanted) >= 0) {
                    return true;
                }
            } catch (IOException e) {
                // gone, or not ours to read
            }
        }
        return false;
    }

    /**
     * Sends {@code signal} (TERM, KILL) to every process of group {@code pgid}; false when the group
     * is gone or may not be signalled.
     */
    static boolean signal(long pgid, String signal) {
        if (pgid <= 1 || pgid == ownGroup()) {
            return false;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, "--", "-" + pgid)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                return false;
            }
            return kill.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static long ownGroup() {
        return pgidOf(ProcessHandle.current().pid()).orElse(-1);
    }

    private static boolean isNumber(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!Character.isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (i > 0 && haystack[i - 1] != 0) {
                continue; // only match whole NAME=value entries
            }
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
