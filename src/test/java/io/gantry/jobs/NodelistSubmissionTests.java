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
import io.gantry.cluster.PartitionState;
import io.gantry.engine.Hostlist;
import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.engine.Qos;
import io.gantry.security.CurrentUser;
import io.gantry.security.Role;
import tools.jackson.databind.json.JsonMapper;

/**
 * Submit-time checks of {@code -w/--nodelist} and {@code -x/--exclude} on a cluster of four 8-GPU
 * nodes: each refusal names the JSON field or the {@code #SBATCH} line that caused it.
 */
class NodelistSubmissionTests {

    private static final CurrentUser ALICE = new CurrentUser("alice", Set.of(Role.USER));
    /** No reservation exists: any name is unknown, as the reservations feature would say. */
    private static final ReservationAccess NO_RESERVATIONS = (name, user, account) -> java.util.Optional
            .of("unknown reservation '" + name + "'");
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
        Charges charges = (ChargesOf) (user, account, qos) -> new Charge("physics", "normal",
                new Qos("normal", 0, 0, 0, null, null, null), null, null);
        resolver = new SubmissionResolver(cluster, charges, mock(AccountedJobs.class),
                new JobsProperties(false, 1001, 31_536_000, org.springframework.util.unit.DataSize.ofMegabytes(4)),
                Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC), NO_RESERVATIONS);
    }

    @Test
    void lists_of_known_nodes_are_kept_compressed_and_draw_no_warning() {
        SubmissionResolver.Resolved r = resolve(Map.of("nodelist", "g2,g1", "exclude", "g4"));
        assertThat(r.spec().nodelist()).isEqualTo("g[1-2]");
        assertThat(r.spec().exclude()).isEqualTo("g4");
        assertThat(r.warnings()).isEmpty();
    }

    @Test
    void a_node_the_cluster_does_not_have_is_refused_naming_the_json_field() {
        assertThat(refusal(Map.of("nodelist", "g1,x[1-3]"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("nodelist");
            assertThat(e.message()).contains("'x1', 'x2', 'x3'", "neither configured nor registered");
        });
    }

    @Test
    void a_directive_naming_an_unknown_node_is_refused_naming_its_line() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -J x\n#SBATCH --exclude=ghost\nhostname\n")))
                .singleElement().satisfies(e -> assertThat(e.field()).isEqualTo("script:3"));
    }

    @Test
    void a_json_list_wins_over_the_directive_and_its_errors_name_the_json_field() {
        assertThat(refusal(Map.of("nodelist", "ghost", "script", "#!/bin/bash\n#SBATCH -w g1\nhostname\n")))
                .singleElement().satisfies(e -> assertThat(e.field()).isEqualTo("nodelist"));
    }

    @Test
    void a_request_bigger_than_the_listed_node_is_refused() {
        assertThat(refusal(Map.of("nodes", 1, "gpus", 16, "nodelist", "g1"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("nodelist");
            assertThat(e.message()).contains("g1", "8 GPUs");
        });
    }

    @Test
    void a_nodelist_longer_than_the_node_count_is_refused() {
        assertThat(refusal(Map.of("script", "#!/bin/bash\n#SBATCH -N 1-2\n#SBATCH -w g[1-3]\nhostname\n")))
                .singleElement().satisfies(e -> {
                    assertThat(e.field()).isEqualTo("script:3");
                    assertThat(e.message()).contains("names 3 nodes", "at most 2");
                });
    }

    @Test
    void a_nodelist_without_a_node_count_sets_it() {
        assertThat(resolve(Map.of("nodelist", "g[1-3]")).spec().nodelist()).isEqualTo("g[1-3]");
    }

    @Test
    void many_unknown_nodes_are_shown_as_the_first_five_and_a_count() {
        assertThat(refusal(Map.of("nodelist", "x[1-60000]"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("nodelist");
            assertThat(e.message()).isEqualTo("unknown nodes 'x1', 'x2', 'x3', 'x4', 'x5' and 59,995 more (60,000 in all)"
                    + ": neither configured nor registered");
        });
    }

    @Test
    void excluding_every_node_that_could_run_the_job_is_refused() {
        assertThat(refusal(Map.of("gpus", 16, "exclude", "g[2-4]"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("exclude");
            assertThat(e.message()).contains("excluded");
        });
    }

    @Test
    void a_hostlist_of_more_than_65536_names_is_refused_before_expanding() {
        assertThat(refusal(Map.of("exclude", "n[1-65537]"))).singleElement().satisfies(e -> {
            assertThat(e.field()).isEqualTo("exclude");
            assertThat(e.message()).contains("65536");
        });
    }

    @Test
    void a_list_too_long_for_the_store_once_compressed_is_refused() {
        // Every other name of 5,000 nodes compresses no further than one bracket of 2,500 numbers.
        List<String> many = new java.util.ArrayList<>();
        for (int i = 1; i <= 5000; i++) {
            many.add("big" + i);
        }
        Map<String, ClusterLayout.NodeSpec> nodes = new LinkedHashMap<>();
        many.forEach(n -> nodes.put(n, new ClusterLayout.NodeSpec(n, 1, 1, 0, null, List.of(), true, List.of("gpu"),
                null, null)));
        SubmissionResolver big = new SubmissionResolver(clusterOf(nodes), (ChargesOf) (u, a, q) -> new Charge("physics", "normal",
                new Qos("normal", 0, 0, 0, null, null, null), null, null), mock(AccountedJobs.class),
                new JobsProperties(false, 1001, 31_536_000, org.springframework.util.unit.DataSize.ofMegabytes(4)), Clock.systemUTC(),
                NO_RESERVATIONS);
        String everyOther = Hostlist.of(many.stream().filter(n -> Integer.parseInt(n.substring(3)) % 2 == 0)
                .toList()).compressed();
        GantryException e = catchThrowableOfType(GantryException.class,
                () -> big.resolve(submission(Map.of("exclude", everyOther)), ALICE, id -> false));
        assertThat(e.errors()).singleElement().satisfies(err -> {
            assertThat(err.field()).isEqualTo("exclude");
            assertThat(err.message()).contains("at most 4000");
        });
    }

    private static ClusterService clusterOf(Map<String, ClusterLayout.NodeSpec> nodes) {
        List<String> names = List.copyOf(nodes.keySet());
        ClusterService cluster = mock(ClusterService.class);
        ClusterLayout layout = new ClusterLayout("big", nodes, Map.of("gpu",
                new ClusterLayout.PartitionSpec("gpu", names, true, 3600L, null, 0, PartitionState.UP, null, 1L)),
                List.of(), List.of());
        when(cluster.layout()).thenReturn(layout);
        when(cluster.engineShapes(layout)).thenReturn(new ClusterService.EngineLayout(
                names.stream().map(n -> Node.of(n, 1, 1, 0)).toList(), List.of(new Partition("gpu", names, 0, 0, true))));
        when(cluster.engineSwitches()).thenReturn(List.of());
        return cluster;
    }

    private SubmissionResolver.Resolved resolve(Map<String, Object> body) {
        return resolver.resolve(submission(body), ALICE, id -> false);
    }

    private List<FieldError> refusal(Map<String, Object> body) {
        GantryException e = catchThrowableOfType(GantryException.class, () -> resolve(body));
        assertThat(e).as("refused").isNotNull();
        return e.errors();
    }

    private static JobSubmission submission(Map<String, Object> body) {
        Map<String, Object> withScript = new LinkedHashMap<>(body);
        withScript.putIfAbsent("script", "#!/bin/bash\nhostname\n");
        return JsonMapper.builder().build().convertValue(withScript, JobSubmission.class);
    }
}
