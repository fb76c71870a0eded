package io.gantry.jobs;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Expected behaviour was checked against Slurm 22.05 ({@code sbatch --test-only} and
 * {@code sbatch -H} then {@code scontrol show job}) unless a row says Gantry differs.
 */
class SbatchDirectivesTests {

    @ParameterizedTest(name = "#SBATCH {0} sets {1} to {2}")
    @CsvSource(delimiter = '|', textBlock = """
            -J train                      | name              | train
            -Jtrain                       | name              | train
            --job-name=train              | name              | train
            --job-name train              | name              | train
            --job-n=train                 | name              | train
            -p gpu                        | partition         | gpu
            -pgpu                         | partition         | gpu
            --partition=gpu,cpu           | partition         | gpu,cpu
            --partition gpu               | partition         | gpu
            -A physics                    | account           | physics
            --account=physics             | account           | physics
            --account physics             | account           | physics
            -q high                       | qos               | high
            --qos=high                    | qos               | high
            -N 2                          | nodes             | 2
            -N 2                          | maxNodes          | 2
            -N2-4                         | nodes             | 2
            -N2-4                         | maxNodes          | 4
            --nodes=3                     | nodes             | 3
            --nodes 1k                    | nodes             | 1024
            -n 8                          | tasks             | 8
            -n8                           | tasks             | 8
            --ntasks=8                    | tasks             | 8
            --ntasks 8                    | tasks             | 8
            -c 4                          | cpusPerTask       | 4
            -c4                           | cpusPerTask       | 4
            --cpus-per-task=4             | cpusPerTask       | 4
            --mem=16G                     | memoryMb          | 16384
            --mem 512                     | memoryMb          | 512
            --mem=1T                      | memoryMb          | 1048576
            --mem=0                       | memoryMb          | 0
            --mem-per-cpu=2G              | memPerCpuMb       | 2048
            --mem-per-cpu 100             | memPerCpuMb       | 100
            --mem-per-gpu=80G             | memPerGpuMb       | 81920
            --gres=gpu:h100:2             | gpusPerNode       | 2
            --gres=gpu:h100:2             | gpuType           | h100
            --gres=gpu:4                  | gpusPerNode       | 4
            --gres=gpu:4                  | gpuType           | null
            --gres gpu                    | gpusPerNode       | 1
            --gres=gpu:a100               | gpuType           | a100
            --gres=none                   | gpusPerNode       | null
            --gres=shard:2                | shards            | 2
            --gres=shard                  | shards            | 1
            --gres=gpu:1g.10gb:3          | gpuType           | 1g.10gb
            --gres=gpu:1g.10gb:3          | gpusPerNode       | 3
            --gres=gpu:3g.40gb            | gpusPerNode       | 1
            -G 8                          | gpus              | 8
            -G8                           | gpus              | 8
            --gpus=h100:8                 | gpus              | 8
            --gpus=h100:8                 | gpuType           | h100
            -G h100                       | gpus              | 1
            --gpus-per-node=4             | gpusPerNode       | 4
            --gpus-per-node h100:4        | gpuType           | h100
            --gpus-per-task=1             | gpusPerTask       | 1
            --cpus-per-gpu=8              | cpusPerGpu        | 8
            --ntasks-per-node=4           | ntasksPerNode     | 4
            -t 90                         | timeLimitSeconds  | 5400
            -t1-00:00:00                  | timeLimitSeconds  | 86400
            --time=2:00:00                | timeLimitSeconds  | 7200
            --time UNLIMITED              | timeLimitSeconds  | -1
            -C ib                         | constraints       | ib
            --constraint=ib&nvlink        | constraints       | ib&nvlink
            --exclusive                   | exclusive         | true
            -d afterok:1:2                | dependency        | afterok:1:2
            --dependency=AFTEROK:7        | dependency        | afterok:7
            --dependency singleton        | dependency        | singleton
            -a 0-99%10                    | array             | 0-99%10
            -a1,3,5-7                     | array             | 1,3,5-7
            --array=0-15:3                | array             | 0-15:3
            --array 5,1-3                 | array             | 1-3,5
            -H                            | hold              | true
            --hold                        | hold              | true
            --nice                        | nice              | 100
            --nice=10                     | nice              | 10
            --nice=-5                     | nice              | -5
            -D /scratch/run               | workdir           | /scratch/run
            --chdir=/scratch/run          | workdir           | /scratch/run
            -o out-%j.log                 | stdout            | out-%j.log
            -oout-%j.log                  | stdout            | out-%j.log
            --output=out-%j.log           | stdout            | out-%j.log
            -e err-%j.log                 | stderr            | err-%j.log
            --error err-%j.log            | stderr            | err-%j.log
            --requeue                     | requeue           | true
            --no-requeue                  | requeue           | false
            --requeue --no-requeue        | requeue           | false
            -w node[01-02]                | nodelist          | node[01-02]
            --nodelist=node02,node01      | nodelist          | node[01-02]
            -x node03                     | exclude           | node03
            --exclude=node[03-04]         | exclude           | node[03-04]
            -b now+60                     | beginTime         | now+60
            --begin=2027-01-20T12:34      | beginTime         | 2027-01-20T12:34
            --deadline=now+1hour          | asked:deadline    | now+1hour
            --deadline 2027-01-20T12:34   | asked:deadline    | 2027-01-20T12:34
            --reservation=maint           | reservation       | maint
            --reservation maint           | reservation       | maint
            --export=ALL,FOO=bar          | export            | ALL,FOO=bar
            --export NONE                 | export            | NONE
            --comment=nightly             | comment           | nightly
            --comment nightly             | comment           | nightly
            --signal=B:USR1@120           | signal            | B:USR1@120
            --signal SIGTERM              | signal            | TERM@60
            --signal=R:10@0               | signal            | USR1@0
            --switches=2                  | switches          | 2@300
            --switches 1@2:00             | switches          | 1@120
            --time-min=30                 | timeMinSeconds    | 1800
            --time-min 1:00:00            | timeMinSeconds    | 3600
            --segment=4                   | segment           | 4
            --kill-on-invalid-dep=yes     | asked:kill-on-invalid-dep | true
            --kill-on-invalid-dep=NO      | asked:kill-on-invalid-dep | false
            --kill-on-invalid-dep no      | asked:kill-on-invalid-dep | false
            """)
    void eachOptionInEachOfItsFormsSetsItsField(String directive, String field, String expected) {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH " + directive));

        assertThat(String.valueOf(field(options, field))).isEqualTo(expected);
        assertThat(options.warnings()).isEmpty();
    }

    @Test
    void aScriptWithoutDirectivesLeavesEveryFieldUnset() {
        SbatchOptions options = SbatchDirectives.parse("#!/bin/bash\n# just a comment\nhostname\n");

        for (RecordComponent component : SbatchOptions.class.getRecordComponents()) {
            if (!List.of("warnings", "lines", "asked").contains(component.getName())) {
                assertThat(field(options, component.getName())).as(component.getName()).isNull();
            }
        }
        assertThat(options.warnings()).isEmpty();
        assertThat(options.lines()).isEmpty();
        assertThat(options.asked()).isEmpty();
    }

    @Test
    void eachOptionRemembersTheLineItWasLastGivenOn() {
        SbatchOptions options = SbatchDirectives.parse("#!/bin/bash\n#SBATCH -w n1\n#SBATCH -J a\n#SBATCH --nodelist=n2\n");

        assertThat(options.lineOf("nodelist")).isEqualTo(4);
        assertThat(options.lineOf("job-name")).isEqualTo(3);
        assertThat(options.lineOf("exclude")).isNull();
    }

    @Test
    void killOnInvalidDepTakesYesOrNoAndAnythingElseIsAnErrorAtItsLine() {
        assertThatExceptionOfType(SbatchException.class)
                .isThrownBy(() -> SbatchDirectives.parse("#!/bin/bash\n#SBATCH -J a\n#SBATCH --kill-on-invalid-dep=maybe\n"))
                .satisfies(e -> assertThat(e.errors()).singleElement().satisfies(err -> {
                    assertThat(err.line()).isEqualTo(3);
                    assertThat(err.message()).contains("'maybe' is neither yes nor no");
                }));
    }

    @Test
    void aNodeListOfMoreThan65536NamesIsAnErrorAtItsLine() {
        assertThatExceptionOfType(SbatchException.class)
                .isThrownBy(() -> SbatchDirectives.parse("#!/bin/bash\n#SBATCH -x n[1-65537]\n"))
                .satisfies(e -> assertThat(e.errors()).singleElement().satisfies(err -> {
                    assertThat(err.line()).isEqualTo(2);
                    assertThat(err.message()).contains("65536");
                }));
    }

    @Test
    void directivesAreReadUntilTheFirstCommandAndNotAfter() {
        SbatchOptions options = SbatchDirectives.parse("""
                #!/bin/bash
                #SBATCH -J first
                hostname
                #SBATCH -n 4
                #SBATCH --bogus
                """);

        assertThat(options.name()).isEqualTo("first");
        assertThat(options.tasks()).isNull();
    }

    @Test
    void blankLinesCommentsAndIndentedCommentsDoNotEndTheDirectives() {
        SbatchOptions options = SbatchDirectives.parse("""
                #!/bin/bash

                # the model
                   \t
                    # an indented comment
                #SBATCH -J train
                #SBATCH -n 4
                srun python train.py
                """);

        assertThat(options.name()).isEqualTo("train");
        assertThat(options.tasks()).isEqualTo(4);
    }

    @Test
    void anIndentedCommandEndsTheDirectives() {
        SbatchOptions options = SbatchDirectives.parse("#!/bin/bash\n  module load cuda\n#SBATCH -n 4\n");

        assertThat(options.tasks()).isNull();
    }

    @Test
    void aScriptNeedNotStartWithAnInterpreterLine() {
        assertThat(SbatchDirectives.parse("#SBATCH -n 4\nhostname\n").tasks()).isEqualTo(4);
    }

    @Test
    void severalOptionsMayShareOneLine() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -J train -N 2 --ntasks=16 --mem 64G -t 1:00:00"));

        assertThat(options).extracting(SbatchOptions::name, SbatchOptions::nodes, SbatchOptions::tasks,
                SbatchOptions::memoryMb, SbatchOptions::timeLimitSeconds)
            .containsExactly("train", 2, 16, 65536L, 3600L);
    }

    @Test
    void flagsWithoutValuesCanBeGroupedWithAShortOptionThatTakesOne() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -Hn2"));

        assertThat(options.hold()).isTrue();
        assertThat(options.tasks()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{1} is read as the name ''{0}''")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            my job        | #SBATCH --job-name="my job"
            my job        | #SBATCH -J "my job"
            my job        | #SBATCH -J 'my job'
            prefix suffix | #SBATCH -J pre"fix suf"fix
            a#b           | #SBATCH -J "a#b"
            train         | #SBATCH -J train # a comment -n x
            train         | #SBATCH -J train#a comment
            train         | #SBATCH\t-J\ttrain
            train         | #SBATCH-Jtrain
            """)
    void wordsAreSplitQuotedEscapedAndCommentedAsSbatchDoes(String name, String line) {
        assertThat(SbatchDirectives.parse(script(line.replace("\\t", "\t"))).name()).isEqualTo(name);
    }

    @Test
    void aBackslashEscapesAQuoteOrAHashButLikeSbatchNotTheSpaceThatEndsAWord() {
        assertThat(SbatchDirectives.parse(script("#SBATCH -J a\\#b")).name()).isEqualTo("a#b");
        assertThat(SbatchDirectives.parse(script("#SBATCH -J a\\\"b")).name()).isEqualTo("a\"b");
        assertThat(SbatchDirectives.parse(script("#SBATCH -J \"a\\\"b\"")).name()).isEqualTo("a\"b");
        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse(script("#SBATCH -J my\\ job")))
            .satisfies(error -> assertThat(error.errors()).extracting(ScriptError::option).containsExactly("job"));
    }

    @Test
    void aTrailingCommentAfterTheOptionsIsIgnoredAsSbatchIgnoresIt() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -N 2  # two nodes"));

        assertThat(options.nodes()).isEqualTo(2);
        assertThat(options.warnings()).isEmpty();
    }

    @ParameterizedTest(name = "''{0}'' is a plain comment")
    @ValueSource(strings = { "# SBATCH --bogus", "  #SBATCH --bogus", "\t#SBATCH --bogus", "#sbatch --bogus",
        "##SBATCH --bogus", "#!SBATCH --bogus" })
    void onlyLinesStartingExactlyWithTheMagicWordAreDirectives(String line) {
        SbatchOptions options = SbatchDirectives.parse(script(line, "#SBATCH -n 2"));

        assertThat(options.tasks()).isEqualTo(2);
    }

    @Test
    void theOldSlurmMagicWordIsReadWithAWarningAsSbatchDoes() {
        SbatchOptions options = SbatchDirectives.parse(script("#SLURM -n 3"));

        assertThat(options.tasks()).isEqualTo(3);
        assertThat(options.warnings()).containsExactly("line 2: #SLURM is an old spelling of #SBATCH; write #SBATCH");
    }

    @Test
    void windowsLineEndingsAreRead() {
        SbatchOptions options = SbatchDirectives.parse("#!/bin/bash\r\n#SBATCH -J train\r\n#SBATCH -n 2\r\nhostname\r\n");

        assertThat(options.name()).isEqualTo("train");
        assertThat(options.tasks()).isEqualTo(2);
    }

    @Test
    void aRepeatedOptionTakesItsLastValueAsInSbatch() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -n 2", "#SBATCH --ntasks=5"));

        assertThat(options.tasks()).isEqualTo(5);
    }

    @Test
    void aValueMayStartWithADashWhenItFollowsAnOptionThatNeedsOne() {
        assertThat(SbatchDirectives.parse(script("#SBATCH -J -n")).name()).isEqualTo("-n");
    }

    @Test
    void theArrayLimitCanBeRaisedByTheCaller() {
        assertThat(SbatchDirectives.parse(script("#SBATCH --array=0-9999"), 10_000).array()).isEqualTo("0-9999");
    }

    @ParameterizedTest(name = "{0} is accepted with a warning")
    @CsvSource(delimiter = '|', textBlock = """
            --acctg-freq=task=30        | --acctg-freq
            --batch=haswell             | --batch
            --bb=capacity=1G            | --bb
            --bbf=bb.conf               | --bbf
            --cluster-constraint=east   | --cluster-constraint
            -M east                     | -M
            --clusters=east             | --clusters
            --container-save=/tmp/c.sqsh | --container-save
            --container-unshare=net     | --container-unshare
            --contiguous                | --contiguous
            -S 2                        | -S
            --core-spec=2               | --core-spec
            --cores-per-socket=8        | --cores-per-socket
            --cpu-freq=high             | --cpu-freq
            --delay-boot=5              | --delay-boot
            -m block                    | -m
            --distribution=cyclic       | --distribution
            --export-file=env.txt       | --export-file
            -B 2:8:1                    | -B
            --extra-node-info=2:8       | --extra-node-info
            --get-user-env              | --get-user-env
            --get-user-env=10L          | --get-user-env
            --gid=wheel                 | --gid
            --gpu-bind=closest          | --gpu-bind
            --gpu-freq=high             | --gpu-freq
            --gpus-per-socket=2         | --gpus-per-socket
            --gres-flags=enforce-binding | --gres-flags
            -h                          | -h
            --help                      | --help
            --hint=nomultithread        | --hint
            --ignore-pbs                | --ignore-pbs
            -i in.txt                   | -i
            --input=in.txt              | --input
            -L matlab:2                 | -L
            --licenses=matlab           | --licenses
            --mail-type=END,FAIL        | --mail-type
            --mail-user=me@example.org  | --mail-user
            --mcs-label=team            | --mcs-label
            --mem-bind=local            | --mem-bind
            --mincpus=4                 | --mincpus
            --network=sn_all            | --network
            -k                          | -k
            --no-kill                   | --no-kill
            --no-kill=off               | --no-kill
            -F hosts.txt                | -F
            --nodefile=hosts.txt        | --nodefile
            --ntasks-per-core=1         | --ntasks-per-core
            --ntasks-per-gpu=1          | --ntasks-per-gpu
            --ntasks-per-socket=1       | --ntasks-per-socket
            --open-mode=append          | --open-mode
            -O                          | -O
            --overcommit                | --overcommit
            -s                          | -s
            --oversubscribe             | --oversubscribe
            --parsable                  | --parsable
            --power=level               | --power
            --prefer=haswell            | --prefer
            --priority=10               | --priority
            --profile=task              | --profile
            --propagate                 | --propagate
            --propagate=STACK           | --propagate
            -Q                          | -Q
            --quiet                     | --quiet
            --reboot                    | --reboot
            --sockets-per-node=2        | --sockets-per-node
            --spread-job                | --spread-job
            --test-only                 | --test-only
            --thread-spec=1             | --thread-spec
            --threads-per-core=1        | --threads-per-core
            --tmp=10G                   | --tmp
            --uid=alice                 | --uid
            --usage                     | --usage
            --use-min-nodes             | --use-min-nodes
            -v                          | -v
            --verbose                   | --verbose
            -V                          | -V
            --version                   | --version
            -W                          | -W
            --wait                      | --wait
            --wait-all-nodes=1          | --wait-all-nodes
            --wckey=proj                | --wckey
            """)
    void anOptionSbatchKnowsButGantryDoesNotActOnIsAcceptedWithAWarning(String directive, String option) {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -J x", "#SBATCH " + directive));

        assertThat(options.warnings()).containsExactly("line 3: " + option + " is accepted but Gantry does not act on it");
        assertThat(options.name()).isEqualTo("x");
    }

    @Test
    void exclusiveForAUserOrMcsIsAcceptedAsPlainExclusiveWithAWarning() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH --exclusive=user"));

        assertThat(options.exclusive()).isTrue();
        assertThat(options.warnings())
            .containsExactly("line 2: --exclusive=user is accepted as --exclusive: Gantry gives the job whole nodes");
        assertThat(options.exclusiveMode()).isEqualTo("user");
    }

    @Test
    void exclusiveTopoAsksForWholeBlocksWithoutAWarning() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH -N 2\n#SBATCH --exclusive=topo"));

        assertThat(options.exclusive()).isTrue();
        assertThat(options.exclusiveMode()).isEqualTo("topo");
        assertThat(options.warnings()).isEmpty();
    }

    @ParameterizedTest(name = "{0} is rejected: {1} {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            --bogus                      | --bogus          | is not an sbatch option
            --hetjob                     | --hetjob         | is not an sbatch option
            -f                           | -f               | is not an sbatch option
            -Hf                          | -f               | is not an sbatch option
            --excl                       | --excl           | is ambiguous: it could be --exclude, --exclusive
            -n                           | -n               | needs a value
            --ntasks                     | --ntasks         | needs a value
            --job-name=                  | --job-name       | needs a value
            -J ""                        | -J               | needs a value
            --hold=yes                   | --hold           | takes no value
            -n 0                         | -n               | '0' must be at least 1
            -n x                         | -n               | 'x' is not a whole number
            -n 2H                        | -n               | '2H' is not a whole number
            -n 99999999999               | -n               | '99999999999' is too large
            -c 0                         | -c               | '0' must be at least 1
            --cpus-per-task=-1           | --cpus-per-task  | '-1' is not a whole number
            --ntasks-per-node=0          | --ntasks-per-node | '0' must be at least 1
            --cpus-per-gpu=0             | --cpus-per-gpu   | '0' must be at least 1
            -N 0                         | -N               | a job needs at least 1 node
            -N 2-1                       | -N               | the maximum 1 is below the minimum 2
            -N 1-                        | -N               | needs a number
            -N two                       | -N               | 'two' is not a whole number
            --mem=1.5G                   | --mem            | Invalid memory size '1.5G': '.5G' at position 1 is not a unit; use K, M, G or T (no unit means megabytes)
            --mem=-1                     | --mem            | Invalid memory size '-1': '-' at position 0 is not allowed; write a whole number with an optional K, M, G or T
            --mem-per-gpu=lots           | --mem-per-gpu    | Invalid memory size 'lots': 'l' at position 0 is not allowed; write a whole number with an optional K, M, G or T
            --gres=license:1             | --gres           | 'license:1': Gantry schedules only GPUs and GPU shards as generic resources; write gpu[:type][:count] or shard[:count]
            --gres=shard:0               | --gres           | 'shard:0' asks for no shard; write shard:N with N of at least 1
            --gres=shard:1:2             | --gres           | 'shard:1:2' has too many ':'; write shard[:count]
            --gres=gpu:h100:2,gpu:a100:1 | --gres           | 'gpu:h100:2,gpu:a100:1' asks for GPUs twice; a Gantry job uses one GPU type
            --gres=gpu:h100:2:1          | --gres           | 'gpu:h100:2:1' has too many ':'; write gpu[:type][:count]
            --gres=gpu:h100:x            | --gres           | 'x' is not a whole number
            -G h100:x                    | -G               | 'x' is not a whole number
            -G :2                        | -G               | '' is not a GPU type such as h100
            --gpus-per-node=h100:        | --gpus-per-node  | needs a number
            -t abc                       | -t               | Invalid time limit 'abc': 'a' at position 0 is not allowed; use digits, '-' and ':' or UNLIMITED
            -d bogus:1                   | -d               | Invalid dependency 'bogus:1': 'bogus' at position 0 is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton
            -a 5-1                       | -a               | Invalid array '5-1': the range at position 0 runs down from 5 to 1; write the smaller index first
            --array=0-1001               | --array          | Invalid array '0-1001': index 1001 at position 2 is too large; indexes run from 0 to 1000
            -b xyz                       | -b               | Invalid begin time 'xyz': 'xyz' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            --nice=abc                   | --nice           | 'abc' is not a whole number
            --nice=3000000000            | --nice           | '3000000000' is out of range (+/- 2147483645)
            --nice 5                     | 5                | is not an option; an #SBATCH line holds only options and their values (quote a value with spaces)
            --exclusive=foo              | --exclusive      | 'foo' is not user, mcs or topo; write --exclusive, --exclusive=user, --exclusive=mcs or --exclusive=topo
            -w a/b                       | -w               | reading host names from a file is not supported; list the hosts, as in node[01-04]
            -x node[3-1]                 | -x               | Invalid hostlist 'node[3-1]' at position 5: descending range 3-1
            --export=1FOO                | --export         | '1FOO' is not ALL, NONE, NAME or NAME=value
            --export=A,,B                | --export         | '' is not ALL, NONE, NAME or NAME=value
            --wrap=hostname              | --wrap           | wraps a command line into a script, which makes no sense inside a script
            -J "never closed             | #SBATCH          | the " that opens a value is never closed
            hetjob                       | hetjob           | heterogeneous jobs are not supported; submit the components as separate jobs
            train                        | train            | is not an option; an #SBATCH line holds only options and their values (quote a value with spaces)
            --                           | --               | is not an option; an #SBATCH line holds only options and their values (quote a value with spaces)
            --signal=USR3                | --signal         | 'USR3': 'USR3' is not a signal; write a name such as USR1 or SIGTERM, or a number from 1 to 64
            --signal=B:USR1@70000        | --signal         | 'B:USR1@70000': the time after @ is at most 65535 seconds
            --signal=65@10               | --signal         | '65@10': signal numbers run from 1 to 64
            --signal=@10                 | --signal         | '@10' names no signal; write [B:]SIG[@seconds], as in B:USR1@60
            """)
    void anUnknownOptionAMissingValueOrAMalformedValueIsAnErrorNamingTheLine(String directive, String option,
            String message) {
        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse(script("#SBATCH -J fine", "", "#SBATCH " + directive)))
            .satisfies(error -> assertThat(error.errors()).containsExactly(new ScriptError(4, option, message)));
    }

    @ParameterizedTest(name = "{0} with a control character is an error naming its line")
    @CsvSource(delimiter = '|', textBlock = """
            -J         | -J
            --job-name | --job-name
            -o         | -o
            --error    | --error
            -D         | -D
            --chdir    | --chdir
            --comment  | --comment
            """)
    void namesAndPathsWithControlCharactersAreAnErrorNamingTheLine(String option, String spelled) {
        String value = option.startsWith("--") ? option + "=a\u0000b" : option + " a\u001bb";
        String shown = option.startsWith("--") ? "NUL" : "\\x1b";

        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse(script("#SBATCH " + value)))
            .satisfies(error -> assertThat(error.errors()).containsExactly(new ScriptError(2, spelled,
                    "must not hold control characters (" + shown + ")")));
    }

    @Test
    void theMemoryOptionsAreMutuallyExclusiveAsInSbatch() {
        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse(script("#SBATCH --mem=1G", "#SBATCH --mem-per-cpu=100")))
            .satisfies(error -> assertThat(error.errors()).containsExactly(new ScriptError(3, "--mem-per-cpu",
                    "--mem, --mem-per-cpu and --mem-per-gpu are mutually exclusive, and line 2 gives --mem")));
    }

    @Test
    void gpuOptionsThatNameDifferentTypesAreAnError() {
        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse(script("#SBATCH -G h100:2 --gpus-per-node=a100:1")))
            .satisfies(error -> assertThat(error.errors()).containsExactly(new ScriptError(2, "--gpus-per-node",
                    "asks for GPU type a100 but line 2 (-G) asks for h100; a Gantry job uses one GPU type")));
    }

    @Test
    void gpuOptionsThatNameTheSameTypeAgree() {
        SbatchOptions options = SbatchDirectives.parse(script("#SBATCH --gres=gpu:h100:8 -G h100:16"));

        assertThat(options).extracting(SbatchOptions::gpusPerNode, SbatchOptions::gpus, SbatchOptions::gpuType)
            .containsExactly(8, 16, "h100");
    }

    @Test
    void everyBadLineIsReportedNotJustTheFirst() {
        assertThatExceptionOfType(SbatchException.class)
            .isThrownBy(() -> SbatchDirectives.parse("""
                    #!/bin/bash
                    #SBATCH --bogus -n 0
                    #SBATCH -J fine
                    #SBATCH --mail-type=END -t soon
                    hostname
                    """))
            .satisfies(error -> assertThat(error.errors()).extracting(ScriptError::line, ScriptError::option)
                .containsExactly(tuple(2, "--bogus"), tuple(2, "-n"), tuple(4, "-t")))
            .withMessageStartingWith("line 2: --bogus: is not an sbatch option; line 2: -n: '0' must be at least 1; line 4: -t: ");
    }

    private static String script(String... directives) {
        return "#!/bin/bash\n" + String.join("\n", directives) + "\nsrun hostname\n";
    }

    /** A component of the options by its name, or with {@code asked:} an option the job keeps as asked. */
    private static Object field(SbatchOptions options, String name) {
        if (name.startsWith("asked:")) {
            return options.asked(name.substring("asked:".length()), Object.class);
        }
        RecordComponent component = Arrays.stream(SbatchOptions.class.getRecordComponents())
            .filter(candidate -> candidate.getName().equals(name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("SbatchOptions has no field " + name));
        try {
            return component.getAccessor().invoke(options);
        }
        catch (ReflectiveOperationException unreadable) {
            throw new AssertionError(unreadable);
        }
    }


}
