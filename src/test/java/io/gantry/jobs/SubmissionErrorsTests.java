package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.cluster.PartitionState;
import io.gantry.engine.Qos;
import io.gantry.security.CurrentUser;
import io.gantry.security.Role;
import tools.jackson.databind.json.JsonMapper;

/**
 * A refused submission explains itself the way the submit form needs it: an impossible request in
 * words ("no node in gpu has 16 GPUs; the largest has 8"), each mistake at the field or the script
 * line that made it, and every mistake in one answer. The cluster: partition gpu of four nodes with
 * 64 CPUs, 512,000 MB and 8 h100 GPUs each; account chemistry is one alice may not use.
 */
class SubmissionErrorsTests {

    private static final CurrentUser ALICE = new CurrentUser("alice", Set.of(Role.USER));
    private static final List<String> NAMES = List.of("g1", "g2", "g3", "g4");

    private SubmissionResolver resolver;

    @BeforeEach
    void cluster() {
        Map<String, ClusterLayout.NodeSpec> nodes = new LinkedHashMap<>();
        NAMES.forEach(n -> nodes.put(n, new ClusterLayout.NodeSpec(n, 64, 512_000, 8, "h100", List.of(), true,
                List.of("gpu"), null, null)));
        ClusterLayout layout = new ClusterLayout("test", nodes, Map.of("gpu", new ClusterLayout.PartitionSpec("gpu",
                NAMES, true, 3600L, null, 0, PartitionState.UP, 1000L, null)), List.of(), List.of());
        ClusterService cluster = mock(ClusterService.class);
        when(cluster.layout()).thenReturn(layout);
        when(cluster.engineShapes(layout)).thenReturn(new ClusterService.EngineLayout(NAMES.stream()
                .map(n -> new Node(n, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null)).toList(),
                List.of(new Partition("gpu", NAMES, 0, 0, true))));
        when(cluster.engineSwitches()).thenReturn(List.of());
        Charges charges = (ChargesOf) (user, account, qos) -> {
            if ("chemistry".equals(account)) {
                throw GantryException.badRequest("account", "user 'alice' has no association with account 'chemistry'");
            }
            return new Charge("physics", "normal", new Qos("normal", 0, 0, 0, null, null, null), null, null);
        };
        resolver = new SubmissionResolver(cluster, charges, mock(AccountedJobs.class),
                new JobsProperties(false, 1001, 31_536_000, org.springframework.util.unit.DataSize.ofMegabytes(4)),
                Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC),
                (name, user, account) -> java.util.Optional.of("unknown reservation '" + name + "'"));
    }

    @Test
    void more_gpus_than_any_node_has_is_explained_in_words_under_gpus() {
        assertThat(refusal(Map.of("gpus", 16, "nodes", 1))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("gpus");
            assertThat(e.message()).isEqualTo("no node in gpu has 16 GPUs; the largest has 8");
        });
        assertThat(refusal(Map.of("gpusPerNode", 9))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("gpusPerNode");
            assertThat(e.message()).isEqualTo("no node in gpu has 9 GPUs; the largest has 8");
        });
    }

    @Test
    void too_many_cpus_or_too_much_memory_name_what_the_largest_node_has() {
        assertThat(refusal(Map.of("cpusPerTask", 65))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("cpusPerTask");
            assertThat(e.message()).isEqualTo("no node in gpu has 65 CPUs; the largest has 64");
        });
        assertThat(refusal(Map.of("memoryMb", 600_000))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("memoryMb");
            assertThat(e.message()).isEqualTo("no node in gpu has 600000 MB of memory; the largest has 512000 MB");
            assertThat(e.message()).doesNotContain("0 MB and");
        });
    }

    @Test
    void an_impossible_request_from_a_directive_is_reported_at_its_line() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -J big\n#SBATCH --gpus-per-node=12\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:3");
                    assertThat(e.message()).isEqualTo("--gpus-per-node: no node in gpu has 12 GPUs; the largest has 8");
                });
    }

    @Test
    void a_gpu_type_no_node_has_is_reported_at_the_gpus_line_not_under_constraints() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -J x\n#SBATCH --gpus=lots\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:3");
                    assertThat(e.message()).isEqualTo("--gpus: no node in gpu has GPUs of type 'lots'; it has h100");
                });
        assertThat(refusal(Map.of("gpus", 1, "gpuType", "a100"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("gpuType");
            assertThat(e.message()).contains("type 'a100'", "h100");
        });
    }

    @Test
    void an_account_named_by_a_directive_is_refused_at_its_line_not_under_the_empty_account_field() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -A chemistry\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:2");
                    assertThat(e.message()).isEqualTo("--account: user 'alice' has no association with account 'chemistry'");
                });
        // Given in the JSON, the same refusal names the JSON field, even when a directive names another.
        assertThat(refusal(Map.of("account", "chemistry", "script", "#!/bin/bash\n#SBATCH -A physics\nhostname\n")))
                .singleElement().satisfies(e -> assertThat(e.field()).isEqualTo("account"));
    }

    @Test
    void bad_directives_and_bad_fields_are_reported_together_in_one_answer() {
        List<FieldError> errors = refusal(Map.of("nodes", -1, "script",
                "#!/bin/bash\n#SBATCH -A chemistry\n#SBATCH --gpus=two:lots\n#SBATCH --no-such-option\nhostname\n"));
        assertThat(errors).extracting(FieldError::field)
                .containsExactlyInAnyOrder("script:3", "script:4", "script:2", "nodes");
        assertThat(errors).filteredOn(e -> e.field().equals("script:3")).singleElement()
                .satisfies(e -> assertThat(e.message()).startsWith("--gpus"));
    }

    @Test
    void an_unknown_account_and_an_impossible_request_come_in_the_same_answer_each_at_its_line() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -A chemistry\n#SBATCH --gpus=lots\nhostname\n")))
                .extracting(FieldError::field, FieldError::message).containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("script:2", "--account: user 'alice' has no association with account 'chemistry'"),
                        org.assertj.core.groups.Tuple.tuple("script:3", "--gpus: no node in gpu has GPUs of type 'lots'; it has h100"));
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -A chemistry\n#SBATCH --gpus-per-node=16\nhostname\n")))
                .extracting(FieldError::field, FieldError::message).containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("script:2", "--account: user 'alice' has no association with account 'chemistry'"),
                        org.assertj.core.groups.Tuple.tuple("script:3", "--gpus-per-node: no node in gpu has 16 GPUs; the largest has 8"));
    }

    @Test
    void a_mistake_in_the_request_itself_is_not_followed_by_a_guess_at_whether_it_fits() {
        // --mem=lots leaves the memory unknown: whether the job fits is not judged on a stand-in value.
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH --mem=lots\n#SBATCH --gpus-per-node=16\nhostname\n")))
                .extracting(FieldError::field).containsExactly("script:2");
    }

    @Test
    void a_deadline_is_read_in_begins_formats_from_a_directive_or_taken_from_the_json() {
        // The clock: 2030-01-01T00:00:00Z, in UTC.
        JobSpec fromDirective = resolver.resolve(submission(Map.of("script",
                "#!/bin/bash\n#SBATCH --deadline=2030-01-01T06:00\nhostname\n")), ALICE, id -> false).spec();
        assertThat(fromDirective.options().deadline()).isEqualTo(Instant.parse("2030-01-01T06:00:00Z"));
        JobSpec relative = resolver.resolve(submission(Map.of("script",
                "#!/bin/bash\n#SBATCH --deadline=now+2hours\nhostname\n")), ALICE, id -> false).spec();
        assertThat(relative.options().deadline()).isEqualTo(Instant.parse("2030-01-01T02:00:00Z"));
        JobSpec json = resolver.resolve(submission(Map.of("deadline", "2030-01-02T00:00:00Z", "script",
                "#!/bin/bash\n#SBATCH --deadline=now+2hours\nhostname\n")), ALICE, id -> false).spec();
        assertThat(json.options().deadline()).as("the JSON wins over the directive").isEqualTo(Instant.parse("2030-01-02T00:00:00Z"));
        assertThat(resolver.resolve(submission(Map.of()), ALICE, id -> false).spec().options().deadline()).isNull();
    }

    @Test
    void a_deadline_that_has_passed_or_comes_before_the_begin_time_is_refused_under_deadline() {
        assertThat(refusal(Map.of("deadline", "2029-12-31T23:00:00Z"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("deadline");
            assertThat(e.message()).isEqualTo("is 2029-12-31T23:00:00Z, which has already passed: a deadline must be"
                    + " in the future");
        });
        assertThat(refusal(Map.of("beginTime", "2030-01-03T00:00:00Z", "deadline", "2030-01-02T00:00:00Z")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("deadline");
                    assertThat(e.message()).isEqualTo("is 2030-01-02T00:00:00Z, before the begin time "
                            + "2030-01-03T00:00:00Z (incompatible begin and deadline time specification)");
                });
        assertThat(refusal(Map.of("script",
                "#!/bin/bash\n#SBATCH --begin=now+2hours\n#SBATCH --deadline=now+1hour\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:3");
                    assertThat(e.message()).startsWith("--deadline: is 2030-01-01T01:00:00Z, before the begin time");
                });
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH --deadline=soonish\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:2");
                    assertThat(e.message()).startsWith("--deadline: Invalid deadline 'soonish': ");
                });
    }

    /**
     * Partition gpu's QOS "small" allows 10 minutes and 2 GPUs a job; alice's own QOS 2 hours and any GPUs. Slurm holds a
     * job to its partition's QOS too, so Gantry refuses at submission what that QOS's per-job limits forbid,
     * naming the partition's QOS; with OverPartQOS on the job's QOS, the job QOS's limits win.
     */
    private SubmissionResolver withPartitionQos(boolean overPartQos) {
        Map<String, ClusterLayout.NodeSpec> nodes = new LinkedHashMap<>();
        NAMES.forEach(n -> nodes.put(n, new ClusterLayout.NodeSpec(n, 64, 512_000, 8, "h100", List.of(), true,
                List.of("gpu"), null, null)));
        ClusterLayout layout = new ClusterLayout("test", nodes, Map.of("gpu", new ClusterLayout.PartitionSpec("gpu",
                NAMES, true, 3600L, null, 0, PartitionState.UP, 1000L, null)), List.of(), List.of());
        ClusterService cluster = mock(ClusterService.class);
        when(cluster.layout()).thenReturn(layout);
        when(cluster.engineShapes(layout)).thenReturn(new ClusterService.EngineLayout(NAMES.stream()
                .map(n -> new Node(n, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null)).toList(),
                List.of(new Partition("gpu", NAMES, 0, 0, true))));
        when(cluster.engineSwitches()).thenReturn(List.of());
        when(cluster.partitionQos("gpu")).thenReturn("small");
        Qos own = new Qos("normal", 0, 7200, 0, null, null, null, Set.of(), null, 0, 0, 0, null, null, overPartQos);
        Qos small = new Qos("small", 0, 600, 0, null, io.gantry.engine.Tres.parse("gres/gpu=2", io.gantry.engine.Tres.UNLIMITED), null);
        Charges charges = new Charges() {
            @Override
            public Charge charge(String user, String account, String qos) {
                return new Charge("physics", "normal", own, null, null);
            }

            @Override
            public Qos engineQos(String name) {
                return "small".equals(name) ? small : null;
            }
        };
        return new SubmissionResolver(cluster, charges, mock(AccountedJobs.class),
                new JobsProperties(false, 1001, 31_536_000, org.springframework.util.unit.DataSize.ofMegabytes(4)),
                Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC),
                (name, user, account) -> java.util.Optional.of("unknown reservation '" + name + "'"));
    }

    @Test
    void a_partition_qos_per_job_limits_refuse_the_submission_and_name_the_partitions_qos() {
        resolver = withPartitionQos(false);
        assertThat(refusal(Map.of("timeLimitSeconds", 3600, "gpus", 4))).satisfiesExactlyInAnyOrder(
                e -> {
                    assertThat(e.field()).isEqualTo("timeLimitSeconds");
                    assertThat(e.message()).contains("MaxWallDurationPerJob").contains("QOS 'small' of partition 'gpu'")
                            .contains("00:10:00");
                },
                e -> {
                    assertThat(e.field()).isEqualTo("partition");
                    assertThat(e.message()).contains("MaxTRESPerJob").contains("QOS 'small' of partition 'gpu'");
                });
        resolver.resolve(submission(Map.of("timeLimitSeconds", 600, "gpus", 2)), ALICE, id -> false);
    }

    @Test
    void with_over_part_qos_the_jobs_own_qos_wins_where_both_set_a_limit() {
        resolver = withPartitionQos(true);
        // Both set MaxWall: the job's QOS's 2 hours win. Only the partition's QOS sets MaxTRESPerJob: it holds.
        resolver.resolve(submission(Map.of("timeLimitSeconds", 3600, "gpus", 2)), ALICE, id -> false);
        assertThat(refusal(Map.of("timeLimitSeconds", 3600, "gpus", 4))).singleElement()
                .satisfies(e -> assertThat(e.field()).isEqualTo("partition"));
    }

    private List<FieldError> refusal(Map<String, Object> body) {
        GantryException e = catchThrowableOfType(GantryException.class,
                () -> resolver.resolve(submission(body), ALICE, id -> false));
        assertThat(e).as("refused").isNotNull();
        return e.errors();
    }

    private static JobSubmission submission(Map<String, Object> body) {
        Map<String, Object> withScript = new LinkedHashMap<>(body);
        withScript.putIfAbsent("script", "#!/bin/bash\nhostname\n");
        return JsonMapper.builder().build().convertValue(withScript, JobSubmission.class);
    }
}
