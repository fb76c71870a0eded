package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StepReportSenderTests {

    private static final Agent.Session SESSION = new Agent.Session("node1", "cred");

    private static StepReport output(int procId, long seq, String data) {
        return new StepReport("7", 0, procId, StepReportType.OUTPUT, "stdout", seq, data, null, null);
    }

    private static StepReport ended(int procId, long seq) {
        return new StepReport("7", 0, procId, StepReportType.ENDED, null, seq, null, 0, null);
    }

    @Test
    void reportsAreRetriedUntilAcknowledgedAndNeverReordered() {
        List<StepReport> delivered = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        StepReportSender sender = new StepReportSender((session, reports) -> {
            if (calls.incrementAndGet() == 1) {
                throw new IOException("connection refused");
            }
            delivered.addAll(reports.reports());
        }, () -> SESSION);
        sender.accept(output(0, 0, "a"));
        sender.accept(output(0, 1, "b"));
        sender.accept(ended(0, 2));
        sender.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 3);
            assertThat(delivered).extracting(StepReport::seq).containsExactly(0L, 1L, 2L);
            assertThat(sender.pending()).isEmpty();
        } finally {
            sender.stop();
        }
    }

    @Test
    void outputBeyondTheBoundIsDroppedButExitsAreKept() {
        StepReportSender sender = new StepReportSender((session, reports) -> {
            throw new IOException("controller away");
        }, () -> SESSION);
        String megabyte = "x".repeat(1024 * 1024);
        for (int i = 0; i < 20; i++) {
            sender.accept(output(0, i, megabyte));
        }
        sender.accept(ended(0, 20));
        List<StepReport> pending = sender.pending();
        assertThat(pending).hasSizeLessThan(21);
        assertThat(pending.get(pending.size() - 1).type()).isEqualTo(StepReportType.ENDED);
        assertThat(pending.stream().filter(r -> r.type() == StepReportType.OUTPUT).mapToLong(r -> r.data().length())
                .sum()).isLessThanOrEqualTo(StepReportSender.MAX_QUEUED_BYTES);
    }
}
