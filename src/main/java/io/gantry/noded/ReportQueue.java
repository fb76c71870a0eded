package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.type.TypeReference;

/**
 * Job starts and ends the controller has not acknowledged yet, in the order they happened, kept in
 * {@code pending-reports.json} (rewritten atomically on every change) so that a job's end survives
 * an agent restart or a controller that is away for a while.
 */
final class ReportQueue {

    private static final Logger log = LoggerFactory.getLogger(ReportQueue.class);
    private static final TypeReference<List<Report>> REPORTS = new TypeReference<>() {
    };

    private final Path file;
    private final List<Report> pending = new ArrayList<>();

    private ReportQueue(Path file, List<Report> loaded) {
        this.file = file;
        this.pending.addAll(loaded);
    }

    /** The queue persisted in {@code file}, with what an earlier run left in it. */
    static ReportQueue load(Path file) {
        List<Report> loaded = List.of();
        if (Files.exists(file)) {
            try {
                loaded = AgentJson.MAPPER.readValue(Files.readString(file, StandardCharsets.UTF_8), REPORTS);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + file, e);
            }
        }
        return new ReportQueue(file, loaded);
    }

    synchronized void add(Report report) {
        pending.add(report);
        save();
        notifyAll();
    }

    /** Up to {@code max} of the oldest reports, waiting up to {@code timeoutMillis} for one. */
    synchronized List<Report> oldest(int max, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (pending.isEmpty()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return List.of();
            }
            wait(left);
        }
        return List.copyOf(pending.subList(0, Math.min(max, pending.size())));
    }

    /** Forgets the {@code count} oldest reports, which the controller acknowledged. */
    synchronized void acknowledge(int count) {
        pending.subList(0, Math.min(count, pending.size())).clear();
        save();
    }

    synchronized List<Report> pending() {
        return List.copyOf(pending);
    }

    /** Jobs whose end the controller has not acknowledged yet. */
    synchronized Set<String> unacknowledgedEnds() {
        Set<String> ids = new LinkedHashSet<>();
        for (Report r : pending) {
            if (r.type() == ReportType.ENDED) {
                ids.add(r.jobId());
            }
        }
        return ids;
    }

    /**
     * Rewrites the file. A failure (a full disk) is logged, not thrown: the reports stay queued in
     * memory and are still sent; only a restart before the next successful write would lose them.
     */
    private void save() {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temp, AgentJson.MAPPER.writeValueAsString(pending), StandardCharsets.UTF_8);
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot write the pending job reports to {}: {}", file, e.toString());
        }
    }
}
