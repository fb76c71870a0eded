package io.gantry.cli.srun;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Where srun writes its tasks' output: line by line, as Slurm does unless {@code --unbuffered}, so
 * lines of several tasks never mix; with {@code --label} each line starts with its task number,
 * padded to the width of the highest ({@code " 3: "} among twelve tasks). What a task left without
 * a final newline goes out at the end.
 */
final class SrunOutput {

    private record Key(int procId, String stream) {
    }

    private final boolean label;
    private final boolean unbuffered;
    private final int width;
    private final BiFunction<Integer, String, OutputStream> target;
    private final Map<Key, StringBuilder> partial = new HashMap<>();
    private final Set<OutputStream> touched = new LinkedHashSet<>();

    /**
     * @param tasks how many tasks the step has (sets the label width)
     * @param target the stream for a task's stdout or stderr ({@code "stdout"}, {@code "stderr"})
     */
    SrunOutput(boolean label, boolean unbuffered, int tasks, BiFunction<Integer, String, OutputStream> target) {
        this.label = label;
        this.unbuffered = unbuffered;
        this.width = Integer.toString(Math.max(0, tasks - 1)).length();
        this.target = target;
    }

    void write(int procId, String stream, String data) throws IOException {
        if (data == null || data.isEmpty()) {
            return;
        }
        Key key = new Key(procId, "stderr".equals(stream) ? "stderr" : "stdout");
        StringBuilder line = partial.computeIfAbsent(key, k -> new StringBuilder());
        if (unbuffered) {
            // nothing is held back: the builder only marks a line begun and not yet ended
            boolean atStart = line.length() == 0;
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < data.length(); i++) {
                if (atStart && label) {
                    out.append(prefix(procId));
                }
                char c = data.charAt(i);
                out.append(c);
                atStart = c == '\n';
            }
            line.setLength(0);
            if (!atStart) {
                line.append('+');
            }
            emit(key, out.toString());
            return;
        }
        int start = 0;
        int newline;
        StringBuilder out = new StringBuilder();
        while ((newline = data.indexOf('\n', start)) >= 0) {
            if (label) {
                out.append(prefix(procId));
            }
            out.append(line).append(data, start, newline + 1);
            line.setLength(0);
            start = newline + 1;
        }
        line.append(data, start, data.length());
        emit(key, out.toString());
    }

    /** Writes what is left of unfinished lines, and flushes everything written. */
    void finish() throws IOException {
        if (!unbuffered) {
            for (Map.Entry<Key, StringBuilder> e : partial.entrySet()) {
                if (e.getValue().length() > 0) {
                    emit(e.getKey(), (label ? prefix(e.getKey().procId()) : "") + e.getValue());
                    e.getValue().setLength(0);
                }
            }
        }
        flush();
    }

    void flush() throws IOException {
        for (OutputStream out : touched) {
            out.flush();
        }
    }

    String prefix(int procId) {
        return String.format("%" + width + "d: ", procId);
    }

    private void emit(Key key, String text) throws IOException {
        if (text.isEmpty()) {
            return;
        }
        OutputStream out = target.apply(key.procId(), key.stream());
        if (out != null) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            touched.add(out);
        }
    }
}
