package io.gantry.simulation;

import io.gantry.engine.Hostlist;
import io.gantry.engine.Policy;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code gantry simulate --trace FILE.swf --nodes N --cpus-per-node C [--gpus-per-node G]
 * [--policy fifo|easy|default] [--max-jobs N] [--estimates yes|no] --out schedule.csv}: replays a trace
 * and prints one line of figures (and, on stderr, the longest wait and what was skipped; with
 * {@code --estimates yes} a second line with the expected starts' error).
 */
public final class SimulateCommand {

    private SimulateCommand() {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Options o;
        try {
            o = Options.parse(args, "--trace", "--nodes", "--cpus-per-node", "--gpus-per-node", "--policy", "--out",
                    "--max-jobs", "--estimates");
        } catch (IllegalArgumentException e) {
            err.println("simulate: " + e.getMessage());
            err.println("usage: simulate --trace FILE.swf --nodes N --cpus-per-node C [--gpus-per-node G] "
                    + "[--policy fifo|easy|default] [--max-jobs N] [--estimates yes|no] --out schedule.csv");
            return 2;
        }
        try {
            Path trace = Path.of(o.required("--trace"));
            int nodes = o.intValue("--nodes", -1);
            int cpus = o.intValue("--cpus-per-node", -1);
            int gpus = o.intValue("--gpus-per-node", 0);
            Policy policy = Policy.named(o.value("--policy", "default"));
            Path outFile = Path.of(o.required("--out"));
            int maxJobs = o.intValue("--max-jobs", 0);
            String estimates = o.value("--estimates", "no");
            if (!estimates.equals("yes") && !estimates.equals("no")) {
                throw new IllegalArgumentException("--estimates must be yes or no, not '" + estimates + "'");
            }
            if (nodes <= 0 || cpus <= 0) {
                throw new IllegalArgumentException("--nodes and --cpus-per-node are required and positive");
            }
            long wallStart = System.nanoTime();
            SwfReader.Trace t = SwfReader.read(trace, maxJobs);
            Replay replay = new Replay(nodes, cpus, gpus, policy);
            if (estimates.equals("yes")) {
                replay.withEstimates();
            }
            Replay.Result r = replay.run(t.jobs());
            write(outFile, r);
            double wall = (System.nanoTime() - wallStart) / 1e9;
            Figures f = Figures.of(r.schedule(), replay.totalProcs());
            out.println(f.line(r.cycles(), r.cycles() == 0 ? 0 : r.totalCycleMs() / r.cycles(), r.maxCycleMs(), wall));
            err.println(String.format(Locale.ROOT, "policy=%s max_wait_s=%d skipped_records=%d skipped_too_big=%d",
                    policy.name(), f.maxWait(), t.skipped(), r.neverFit()));
            if (r.estimates() != null) {
                err.println(r.estimates().line());
            }
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("simulate: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("simulate: " + e.getMessage());
            return 1;
        }
    }

    static void write(Path file, Replay.Result r) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("job_id,submit,start,end,procs,nodes\n");
            StringBuilder sb = new StringBuilder();
            for (Replay.Scheduled s : r.schedule()) {
                sb.setLength(0);
                String nodes = Hostlist.of(s.nodes()).toString();
                sb.append(s.id()).append(',').append(s.submit()).append(',').append(s.start()).append(',')
                        .append(s.end()).append(',').append(s.procs()).append(',');
                if (nodes.indexOf(',') >= 0) {
                    sb.append('"').append(nodes).append('"');
                } else {
                    sb.append(nodes);
                }
                sb.append('\n');
                w.write(sb.toString());
            }
        }
    }
}
