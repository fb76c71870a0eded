package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Expected expansions and compressions were taken from Slurm 22.05's
 * {@code scontrol show hostnames} and {@code scontrol show hostlistsorted} wherever Gantry
 * does not deliberately differ (suffixes, strictness, dropping duplicates).
 */
class HostlistTests {

    @ParameterizedTest(name = "{0} expands to {1}")
    @CsvSource(delimiter = '|', textBlock = """
            gpu[001-003,007],cpu[1-2] | gpu001 gpu002 gpu003 gpu007 cpu1 cpu2
            node1,node2               | node1 node2
            node1                     | node1
            n[1-3]-ib                 | n1-ib n2-ib n3-ib
            rack[1-2]n[01-02]         | rack1n01 rack1n02 rack2n01 rack2n02
            n[1-2][3-4]               | n13 n14 n23 n24
            a[1-2]b[3-4]c             | a1b3c a1b4c a2b3c a2b4c
            gpu[008-010]              | gpu008 gpu009 gpu010
            n[9-10]                   | n9 n10
            n[8-010]                  | n8 n9 n10
            n[01-2]                   | n01 n02
            n[1-3,5]                  | n1 n2 n3 n5
            n[5]                      | n5
            [1-3]                     | 1 2 3
            b,a                       | b a
            a,a,b                     | a a b
            n[1-2],n2                 | n1 n2 n2
            """)
    void anExpressionExpandsInTheOrderWrittenKeepingPaddingAndDuplicates(String expression, String hosts) {
        assertThat(Hostlist.parse(expression).hosts()).containsExactly(hosts.split(" "));
    }

    @Test
    void theEmptyStringIsTheEmptyHostlist() {
        Hostlist empty = Hostlist.parse("");
        assertThat(empty.hosts()).isEmpty();
        assertThat(empty.size()).isZero();
        assertThat(empty.isEmpty()).isTrue();
        assertThat(empty.compressed()).isEmpty();
        assertThat(empty).isEqualTo(Hostlist.of(List.of()));
    }

    @ParameterizedTest(name = "{0} is rejected at position {1} because of {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            n[1-2                 | 1  | '[' is never closed
            n1-2]                 | 4  | ']' without a matching '['
            n[[1]]                | 2  | '[' inside brackets
            n[3-1]                | 2  | descending range 3-1
            a,n[10-20,7-5]        | 10 | descending range 7-5
            n[]                   | 2  | empty range element
            n[1,]                 | 4  | empty range element
            n[,1]                 | 2  | empty range element
            n[1-]                 | 4  | empty range end
            n[-1]                 | 2  | missing number before '-'
            n[a]                  | 2  | 'a' is not a digit
            n[1-b]                | 4  | 'b' is not a digit
            n[1x]                 | 3  | 'x' is not a digit
            n[1-2-3]              | 5  | '-' is not a digit
            a,                    | 1  | dangling comma
            ,a                    | 0  | dangling comma
            a,,b                  | 2  | dangling comma
            ","                   | 0  | dangling comma
            "a b"                 | 1  | whitespace is not allowed
            " a"                  | 0  | whitespace is not allowed
            "n[1, 2]"             | 4  | whitespace is not allowed
            n[1-1000001]          | 2  | range 1-1000001 has more than 1000000 hosts
            n[1-1000][1-1001]     | 9  | expands to more than 1000000 hosts
            a[1-600000],b[1-600000] | 13 | expands to more than 1000000 hosts
            n[1234567890123456789] | 2 | number 1234567890123456789 is too long
            """)
    void aMalformedExpressionNamesThePositionAndTheProblem(String expression, int position, String problem) {
        assertThatExceptionOfType(HostlistException.class).isThrownBy(() -> Hostlist.parse(expression))
            .satisfies(error -> assertThat(error.position()).isEqualTo(position))
            .satisfies(error -> assertThat(error.problem()).isEqualTo(problem))
            .withMessage("Invalid hostlist '" + expression + "' at position " + position + ": " + problem);
    }

    @Test
    void theLargestAllowedRangeStillExpands() {
        assertThat(Hostlist.parse("n[1-1000000]").size()).isEqualTo(Hostlist.MAX_HOSTS);
    }

    @ParameterizedTest(name = "{0} compresses to {1}")
    @CsvSource(delimiter = '|', textBlock = """
            gpu001 gpu002 gpu003 gpu007 cpu1 cpu2 | cpu[1-2],gpu[001-003,007]
            node1 node2                           | node[1-2]
            node1                                 | node1
            n3 n1 n2                              | n[1-3]
            n1 n2 n1                              | n[1-2]
            gpu008 gpu009 gpu010                  | gpu[008-010]
            n9 n10                                | n[9-10]
            n09 n10                               | n[09-10]
            n098 n099 n100                        | n[098-100]
            n99 n100 n098 n099                    | n[098,99,099-100]
            n008 n1000                            | n[008,1000]
            n9 n010                               | n[9,010]
            x10 x9 x08                            | x[08,9-10]
            n01 n1 n02 n2                         | n[1,01,2,02]
            n1-ib n2-ib n3-ib                     | n[1-3]-ib
            n1 n2 n1-ib n2-ib                     | n[1-2],n[1-2]-ib
            rack1n01 rack1n02 rack2n01            | rack1n[01-02],rack2n01
            rack10n1 rack2n1 rack1n1              | rack1n1,rack2n1,rack10n1
            n n1 n2 m                             | m,n,n[1-2]
            b10 a b9 B1                           | B1,a,b[9-10]
            a1 a2 a10 a1x                         | a[1-2,10],a1x
            1 2 3                                 | [1-3]
            login b a                             | a,b,login
            """)
    void hostsCompressToSlurmsSortedForm(String hosts, String compressed) {
        Hostlist hostlist = Hostlist.of(Arrays.asList(hosts.split(" ")));
        assertThat(hostlist.compressed()).isEqualTo(compressed);
        assertThat(hostlist).hasToString(compressed);
    }

    @ParameterizedTest(name = "{0} reads back as the distinct hosts in order")
    @CsvSource(delimiter = '|', textBlock = """
            gpu[001-003,007],cpu[1-2]
            n[9-10],n[09-10],n[8-010]
            rack[1-2]n[01-02],rack[10-11]n1
            n[1-3]-ib,n[1-3],n[2-4]
            x[10,9,08],a,a,b
            """)
    void aCompressedExpressionReadsBackAsTheDistinctSortedHosts(String expression) {
        Hostlist original = Hostlist.parse(expression);
        List<String> expected = original.hosts().stream().distinct().sorted(Hostlist.HOST_ORDER).toList();
        assertThat(Hostlist.parse(original.compressed()).hosts()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "a host name {0} is refused at position {1}")
    @CsvSource(delimiter = '|', textBlock = """
            ''    | 0
            a,b   | 1
            n[1]  | 1
            n]    | 1
            'a b' | 1
            """)
    void aHostNameThatCouldNotBeReadBackIsRefused(String host, int position) {
        assertThatExceptionOfType(HostlistException.class).isThrownBy(() -> Hostlist.of(List.of("ok", host)))
            .satisfies(error -> assertThat(error.position()).isEqualTo(position));
    }

    @Test
    void containsAnswersForEveryExpandedHostAndNoOther() {
        Hostlist hostlist = Hostlist.parse("gpu[001-003],cpu1");
        assertThat(hostlist.contains("gpu002")).isTrue();
        assertThat(hostlist.contains("cpu1")).isTrue();
        assertThat(hostlist.contains("gpu2")).isFalse();
        assertThat(hostlist.contains("gpu004")).isFalse();
    }

    @Test
    void hostlistsAreEqualWhenTheyExpandToTheSameSequence() {
        assertThat(Hostlist.parse("n[1-3]")).isEqualTo(Hostlist.parse("n1,n[2-3]"))
            .isEqualTo(Hostlist.of(List.of("n1", "n2", "n3")))
            .hasSameHashCodeAs(Hostlist.of(List.of("n1", "n2", "n3")));
        assertThat(Hostlist.parse("n[1-3]")).isNotEqualTo(Hostlist.parse("n[3,1-2]"));
        assertThat(Hostlist.parse("n[1-3]").compressed()).isEqualTo(Hostlist.parse("n[3,1-2]").compressed());
    }

    @Test
    void sizeCountsDuplicates() {
        assertThat(Hostlist.parse("a,a,b").size()).isEqualTo(3);
    }

    @Test
    void theHostsCannotBeChangedFromOutside() {
        List<String> source = new ArrayList<>(List.of("n1", "n2"));
        Hostlist hostlist = Hostlist.of(source);
        source.add("n3");
        assertThat(hostlist.hosts()).containsExactly("n1", "n2");
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> hostlist.hosts().add("x"));
    }

    /**
     * Thousands of random host sets, mixing padding, prefixes with digits, suffixes and plain
     * names, each compressed and read back. A failing seed becomes a named case above.
     */
    @Test
    void randomHostSetsSurviveCompressionAndParsing() {
        String[] prefixes = { "gpu", "cpu", "n", "rack1n", "rack10n", "rack2n", "", "a-b", "N" };
        String[] suffixes = { "", "", "", "-ib", ".eth0x" };
        String[] plain = { "login", "head-a", "n", "gpu", "x1y" };
        long seed = 20_240_601L;
        Random random = new Random(seed);
        for (int round = 0; round < 3_000; round++) {
            List<String> hosts = new ArrayList<>();
            int count = random.nextInt(40);
            for (int i = 0; i < count; i++) {
                if (random.nextInt(10) == 0) {
                    hosts.add(plain[random.nextInt(plain.length)]);
                    continue;
                }
                int number = random.nextInt(random.nextBoolean() ? 30 : 1_200);
                int width = 1 + random.nextInt(4);
                String digits = String.format("%0" + width + "d", number);
                hosts.add(prefixes[random.nextInt(prefixes.length)] + digits + suffixes[random.nextInt(suffixes.length)]);
            }
            String compressed = Hostlist.of(hosts).compressed();
            List<String> expected = hosts.stream().distinct().sorted(Hostlist.HOST_ORDER).toList();
            List<String> readBack = Hostlist.parse(compressed).hosts();

            String context = "seed " + seed + " round " + round + ": " + compressed;
            assertThat(readBack).as(context).isEqualTo(expected);
            assertThat(readBack).as(context).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(new LinkedHashSet<>(hosts));
            assertThat(Hostlist.of(readBack).compressed()).as(context).isEqualTo(compressed);
        }
    }

}
