package io.gantry.cli.srun;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * srun's own terminal while a {@code --pty} step runs, as Slurm's srun treats it: in raw mode
 * without echo (every key, Ctrl-C and Ctrl-Z included, goes to the remote terminal, which echoes),
 * its size read at the start and on every SIGWINCH, and its settings put back when srun ends.
 * {@code stty} does the work on srun's standard input; when that is no terminal there is nothing to
 * set and the remote terminal keeps its default size.
 */
final class SrunTerminal {

    private final String saved;

    private SrunTerminal(String saved) {
        this.saved = saved;
    }

    /** The terminal on standard input, now in raw mode; null when standard input is no terminal. */
    static SrunTerminal raw() {
        String saved = stty("-g");
        if (saved == null || saved.isBlank()) {
            return null;
        }
        if (stty("raw", "-echo") == null) {
            return null;
        }
        return new SrunTerminal(saved.strip());
    }

    /** Rows and columns of the terminal on standard input, or null. */
    static int[] size() {
        String size = stty("size");
        if (size == null) {
            return null;
        }
        String[] parts = size.strip().split("\\s+");
        try {
            int rows = Integer.parseInt(parts[0]);
            int cols = Integer.parseInt(parts[1]);
            return rows > 0 && cols > 0 ? new int[] {rows, cols} : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Puts the terminal's settings back as they were before {@link #raw()}. */
    void restore() {
        stty(saved);
    }

    /**
     * Calls {@code handler} on every SIGWINCH (the terminal was resized). HotSpot's signal API; where
     * it is missing the remote terminal keeps the size it started with.
     */
    static void onResize(Runnable handler) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), signal -> handler.run());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            // no SIGWINCH here
        }
    }

    /** Runs stty on srun's standard input; its output, or null when it failed (no terminal). */
    private static String stty(String... args) {
        List<String> command = new ArrayList<>(List.of("stty"));
        command.addAll(List.of(args));
        try {
            Process stty = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out;
            try (InputStream in = stty.getInputStream()) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                in.transferTo(bytes);
                out = bytes.toString(StandardCharsets.UTF_8);
            }
            if (!stty.waitFor(5, TimeUnit.SECONDS)) {
                stty.destroyForcibly();
                return null;
            }
            return stty.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
