package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.time.Instant;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.gantry.api.GantryException;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;

/** What sacct writes: AllocTRES summed over nodes, RFC 4180 CSV, elapsed time and the checked filters. */
class SacctFormatTests {

    private static final Instant NOW = Instant.parse("2026-03-10T12:00:00Z");

    /** AllocTRES of an allocation as the jobs table stores it. */
    private static String allocTres(String allocation) {
        return JobAccountingService.allocTres(JobAllocation.totals(allocation));
    }

    @Test
    void allocTresSumsCpusMemoryAndGpusOverNodesAndCountsTheNodes() {
        assertThat(allocTres("gpu001:32:131072:0.1.2.3;gpu002:32:131072:4.5.6.7"))
                .isEqualTo("cpu=64,mem=256G,gres/gpu=8,node=2");
    }

    @Test
    void aCpuOnlyAllocationHasNoGresAndOddMemoryIsInMegabytes() {
        assertThat(allocTres("cpu001:4:1000:")).isEqualTo("cpu=4,mem=1000M,node=1");
    }

    @Test
    void aJobThatNeverRanHasNoAllocTres() {
        assertThat(JobAccountingService.allocTres(JobAllocation.totals("gpu001:4:1000:0.1"), 36))
                .isEqualTo("billing=36,cpu=4,mem=1000M,gres/gpu=2,node=1");
        assertThat(allocTres(null)).isNull();
        assertThat(allocTres("")).isNull();
    }

    @Test
    void csvQuotesOnlyFieldsWithCommasQuotesOrLineBreaksAndDoublesQuotes() {
        assertThat(SacctCsv.quote("plain")).isEqualTo("plain");
        assertThat(SacctCsv.quote("cpu=4,node=1")).isEqualTo("\"cpu=4,node=1\"");
        assertThat(SacctCsv.quote("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(SacctCsv.quote("two\nlines")).isEqualTo("\"two\nlines\"");
        assertThat(SacctCsv.quote("")).isEmpty();
    }

    @Test
    void aCsvLineEndsInCrlfAndWritesNullsAsEmptyFields() throws Exception {
        StringWriter out = new StringWriter();
        SacctCsv.writeLine(out, Arrays.asList("a", null, 3, "x,y"));
        assertThat(out).hasToString("a,,3,\"x,y\"\r\n");
    }

    @Test
    void aCsvRowHasAFieldForEveryHeaderColumn() throws Exception {
        StringWriter out = new StringWriter();
        SacctCsv.writeRow(out, new JobAccountingRecord("42_7", "n", "alice", "physics", "gpu", "normal",
                JobState.COMPLETED, 0, NOW, NOW, NOW, 0, 60, "cpu=1,node=1", 0, 0, "gpu001", 126418944L, "123456K",
                62345L, "01:02.345", null, null, null));
        assertThat(out.toString().split(",", -1)).hasSize(SacctCsv.HEADER.size() + 1); // allocTres holds a comma
        assertThat(out.toString()).startsWith("42_7,n,alice,physics,gpu,normal,COMPLETED,0,2026-03-10T12:00:00Z,")
                .endsWith(",gpu001,126418944,123456K,62345,01:02.345,,,,,\r\n");
    }

    @Test
    void aCsvRowCarriesTheBorrowedMarkerAndTheReclaim() throws Exception {
        StringWriter out = new StringWriter();
        SacctCsv.writeRow(out, new JobAccountingRecord("44", "n", "bob", "vision", "gpu", "lowgrace",
                JobState.PREEMPTED, 0, NOW, NOW, NOW, 0, 60, "cpu=1,node=1", 0, 0, "gpu001", null, null, null, null,
                true, NOW, "45"));
        assertThat(SacctCsv.HEADER).endsWith("borrowed", "reclaimedAt", "reclaimedFor", "containerImage",
                "containerImageDigest");
        assertThat(out.toString()).endsWith(",gpu001,,,,,true,2026-03-10T12:00:00Z,45,,\r\n");
    }

    @Test
    void aCsvRowCarriesTheContainerImageAndItsDigest() throws Exception {
        StringWriter out = new StringWriter();
        SacctCsv.writeRow(out, new JobAccountingRecord("46", "n", "bob", "vision", "gpu", "normal",
                JobState.COMPLETED, 0, NOW, NOW, NOW, 0, 60, "cpu=1,node=1", 0, 0, "gpu001", null, null, null, null,
                false, null, null, "nvcr.io#nvidia/pytorch:24.05-py3", "sha256:" + "ab".repeat(32)));
        assertThat(out.toString()).endsWith(",false,,,nvcr.io#nvidia/pytorch:24.05-py3,sha256:" + "ab".repeat(32)
                + "\r\n");
    }

    @Test
    void aJobWhoseUsageIsNotKnownHasEmptyMaxRssAndTotalCpuFields() throws Exception {
        StringWriter out = new StringWriter();
        SacctCsv.writeRow(out, new JobAccountingRecord("43", "n", "alice", "physics", "gpu", "normal",
                JobState.PENDING, null, NOW, null, null, 0, 60, null, 0, 0, null, null, null, null, null, null, null,
                null));
        assertThat(out.toString()).endsWith(",0,0,,,,,,,,,,\r\n");
    }

    @Test
    void elapsedIsEndOrNowMinusStartAndZeroWhenNeverStarted() {
        Instant start = NOW.minusSeconds(100);
        assertThat(JobAccountingService.elapsedSeconds(start, NOW.minusSeconds(40), NOW)).isEqualTo(60);
        assertThat(JobAccountingService.elapsedSeconds(start, null, NOW)).isEqualTo(100);
        assertThat(JobAccountingService.elapsedSeconds(null, NOW, NOW)).isZero();
    }

    @Test
    void theWindowDefaultsToTheLastDayAndToAllTimeForNamedJobs() {
        JobAccountingFilter f = JobAccountingFilter.of(null, null, null, null, null, null, null, NOW);
        assertThat(f.start()).isEqualTo(NOW.minusSeconds(86400));
        assertThat(f.end()).isEqualTo(NOW);
        assertThat(JobAccountingFilter.of(null, null, null, null, null, null, "42,43_7", NOW).hasWindow()).isFalse();
        JobAccountingFilter dated = JobAccountingFilter.of("2026-03-01", null, "alice, bob", null, "completed,FAILED",
                null, null, NOW);
        assertThat(dated.start()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
        assertThat(dated.users()).containsExactly("alice", "bob");
        assertThat(dated.states()).containsExactlyInAnyOrder(JobState.COMPLETED, JobState.FAILED);
    }

    @Test
    void eachBadFilterNamesItsParameter() {
        assertBad("start", () -> JobAccountingFilter.of("yesterday", null, null, null, null, null, null, NOW));
        assertBad("end", () -> JobAccountingFilter.of(null, "2026-13-01T00:00:00Z", null, null, null, null, null, NOW));
        assertBad("state", () -> JobAccountingFilter.of(null, null, null, null, "RUNNING,DONE", null, null, NOW));
        assertBad("start", () -> JobAccountingFilter.of("2026-03-02T00:00:00Z", "2026-03-01T00:00:00Z",
                null, null, null, null, null, NOW));
        assertBad("jobId", () -> JobAccountingFilter.of(null, null, null, null, null, null, "42,x", NOW));
    }

    @Test
    void csvIsChosenOnlyWhenTheCallerPrefersIt() {
        assertThat(JobAccountingController.wantsCsv("text/csv")).isTrue();
        assertThat(JobAccountingController.wantsCsv("text/csv, application/json;q=0.5")).isTrue();
        assertThat(JobAccountingController.wantsCsv("application/json, text/csv;q=0.5")).isFalse();
        assertThat(JobAccountingController.wantsCsv("*/*")).isFalse();
        assertThat(JobAccountingController.wantsCsv(null)).isFalse();
    }

    private static void assertBad(String parameter, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(GantryException.class,
                e -> assertThat(e.errors()).extracting(GantryException.FieldError::field).containsExactly(parameter));
    }
}
