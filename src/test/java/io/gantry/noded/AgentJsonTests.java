package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentJsonTests {

    private static final Instant T = Instant.parse("2030-01-02T03:04:05.678Z");

    @Test
    void writesTimesAsIsoStringsAndIgnoresUnknownFields() {
        String json = AgentJson.MAPPER.writeValueAsString(new Report("7", ReportType.ENDED, T, "FAILED", 3, null, null));
        assertThat(json).contains("\"time\":\"2030-01-02T03:04:05.678Z\"").contains("\"type\":\"ENDED\"");
        Registered registered = AgentJson.MAPPER.readValue("{\"node\":\"n1\",\"pollSeconds\":30,\"killWaitSeconds\":5,"
                + "\"syncSeconds\":300,\"state\":\"IDLE\",\"somethingNew\":true}", Registered.class);
        assertThat(registered.node()).isEqualTo("n1");
        assertThat(registered.commands()).isNull();
    }

    @Test
    void aCommandTypeThisAgentDoesNotKnowIsReadAsNoneAndTheOthersStillCount() {
        io.gantry.noded.protocol.AgentProtocol.Commands commands = AgentJson.MAPPER.readValue(
                "{\"commands\":[{\"type\":\"SOMETHING_NEWER\",\"jobId\":\"1\"},"
                        + "{\"type\":\"KILL\",\"jobId\":\"2\",\"endState\":\"CANCELLED\"}]}",
                io.gantry.noded.protocol.AgentProtocol.Commands.class);
        assertThat(commands.commands()).hasSize(2);
        assertThat(commands.commands().get(0).type()).isNull();
        assertThat(commands.commands().get(1).type())
                .isEqualTo(io.gantry.noded.protocol.AgentProtocol.CommandType.KILL);
    }

    @Test
    void theReportQueueKeepsItsOrderAcrossARestart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pending-reports.json");
        ReportQueue queue = ReportQueue.load(file);
        queue.add(new Report("1", ReportType.STARTED, T, null, null, null, null));
        queue.add(new Report("1", ReportType.ENDED, T, "COMPLETED", 0, null, null));
        queue.add(new Report("2", ReportType.ENDED, T, "CANCELLED", null, 15, "by alice"));
        assertThat(Files.readString(file)).contains("2030-01-02T03:04:05.678Z");

        ReportQueue reloaded = ReportQueue.load(file);
        assertThat(reloaded.pending()).isEqualTo(queue.pending());
        assertThat(reloaded.unacknowledgedEnds()).containsExactly("1", "2");
        assertThat(reloaded.oldest(2, 0)).extracting(r -> r.jobId() + r.type()).containsExactly("1STARTED", "1ENDED");
        reloaded.acknowledge(2);
        assertThat(ReportQueue.load(file).pending()).extracting(Report::jobId).containsExactly("2");
        assertThat(reloaded.oldest(10, 50)).hasSize(1);
        reloaded.acknowledge(1);
        assertThat(reloaded.oldest(10, 50)).isEmpty();
    }
}
