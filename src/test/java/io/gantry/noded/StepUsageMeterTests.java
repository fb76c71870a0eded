package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.StepStatProtocol.TaskUsage;

/** The agent's reading of a task's usage from /proc, on a real process group that takes memory and gives it back. */
class StepUsageMeterTests {

    private static final long HELD = 50L * 1024 * 1024;

    @Test
    void aTasksPeakMemoryOutlivesItsReleaseWhileItsCurrentMemoryFalls() throws Exception {
        // its own process group (setsid execs python3, keeping the pid): what a step task is
        Process task = new ProcessBuilder("setsid", "python3", "-c", """
                import gc, sys
                held = bytearray(%d)
                for i in range(0, len(held), 4096):
                    held[i] = 1
                print("held", flush=True)
                sys.stdin.readline()
                del held
                gc.collect()
                print("freed", flush=True)
                sys.stdin.readline()
                """.formatted(HELD)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(task.getInputStream(), StandardCharsets.UTF_8));
            OutputStream in = task.getOutputStream();
            assertThat(out.readLine()).isEqualTo("held");
            StepUsageMeter meter = new StepUsageMeter();
            StepUsageMeter.Target target = new StepUsageMeter.Target("7", 0, 3, task.pid(), null);

            TaskUsage holding = meter.read(List.of(target), true).get(0);
            assertThat(holding.procId()).isEqualTo(3);
            assertThat(holding.pid()).isEqualTo(task.pid());
            assertThat(holding.rssBytes()).isGreaterThanOrEqualTo(HELD);
            assertThat(holding.maxRssBytes()).isEqualTo(holding.rssBytes());
            assertThat(holding.vmBytes()).isGreaterThanOrEqualTo(holding.rssBytes());
            assertThat(holding.readBytes()).as("python read its modules").isPositive();

            in.write('\n');
            in.flush();
            assertThat(out.readLine()).isEqualTo("freed");
            TaskUsage freed = meter.read(List.of(target), true).get(0);
            assertThat(freed.rssBytes()).isLessThan(HELD);
            assertThat(freed.maxRssBytes()).as("MaxRSS keeps the peak").isEqualTo(holding.maxRssBytes());
            assertThat(freed.cpuMillis()).isGreaterThanOrEqualTo(holding.cpuMillis());

            // a reading of every running task forgets the peaks of those that are gone
            meter.read(List.of(), true);
            assertThat(meter.read(List.of(target), false).get(0).maxRssBytes()).isEqualTo(freed.rssBytes());
        } finally {
            task.destroyForcibly();
            task.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTaskThatIsGoneReadsAsNothing() {
        StepUsageMeter meter = new StepUsageMeter();
        TaskUsage none = meter.read(List.of(new StepUsageMeter.Target("7", 0, 0, Long.MAX_VALUE - 1, null)), true)
                .get(0);
        assertThat(none.rssBytes()).isZero();
        assertThat(none.maxRssBytes()).isZero();
        assertThat(none.cpuMillis()).isZero();
    }
}
