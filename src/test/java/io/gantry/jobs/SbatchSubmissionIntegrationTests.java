package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/** Every #SBATCH option API.md lists, in its short and long forms, through the API into the store. */
@GantryIntegrationTest
class SbatchSubmissionIntegrationTests {

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @ParameterizedTest(name = "#SBATCH {0} sets {1} to {2}")
    @CsvSource(delimiter = '|', textBlock = """
            -J short-name                | name             | short-name
            --job-name=long-name         | name             | long-name
            --job-name "quoted name"     | name             | quoted name
            -p cpu                       | partition        | cpu
            --partition=cpu              | partition        | cpu
            -A root                      | account          | root
            --account=root               | account          | root
            -q normal                    | qos              | normal
            --qos=normal                 | qos              | normal
            -N 2                         | nodes            | 2
            --nodes=2-3                  | maxNodes         | 3
            -n 8                         | tasks            | 8
            --ntasks=8                   | tasks            | 8
            -c 4                         | cpusPerTask      | 4
            --cpus-per-task=4            | cpusPerTask      | 4
            --mem=16G                    | memoryMb         | 16384
            --mem 512                    | memoryMb         | 512
            --mem-per-cpu=2G             | memoryMb         | 2048
            --gres=gpu:h100:2            | gpusPerNode      | 2
            --gres=gpu:h100:2            | gpuType          | h100
            --gres=gpu:3                 | gpusPerNode      | 3
            -G 4                         | gpus             | 4
            --gpus=h100:4                | gpus             | 4
            --gpus-per-node=2            | gpusPerNode      | 2
            -t 90                        | timeLimitSeconds | 5400
            --time=1:30:00               | timeLimitSeconds | 5400
            --time=1-00                  | timeLimitSeconds | 86400
            -t 1-2:03:04                 | timeLimitSeconds | 93784
            -C h100                      | constraints      | h100
            --constraint=h100&ib         | constraints      | h100&ib
            --exclusive                  | exclusive        | true
            -a 0-3                       | array            | 0-3
            --array=1,3,5-7%2            | array            | 1,3,5-7%2
            -H                           | hold             | USER
            --hold                       | hold             | USER
            --nice=10                    | nice             | 10
            -D /scratch/run              | workdir          | /scratch/run
            --chdir=/scratch/run         | workdir          | /scratch/run
            -o out-%j.txt                | stdout           | out-%j.txt
            --output=out-%j.txt          | stdout           | out-%j.txt
            -e err-%j.txt                | stderr           | err-%j.txt
            --error=err-%j.txt           | stderr           | err-%j.txt
            --requeue                    | requeue          | true
            --no-requeue                 | requeue          | false
            --ntasks-per-node=4          | ntasksPerNode    | 4
            --gpus-per-task=2            | gpus             | 2
            --cpus-per-gpu=8 -G 1        | cpusPerTask      | 8
            -w gpu[001-002]              | nodelist         | gpu[001-002]
            --nodelist=gpu001            | nodelist         | gpu001
            -x gpu016                    | exclude          | gpu016
            --exclude=gpu[015-016]       | exclude          | gpu[015-016]
            --begin=2099-01-01T10:00:00  | beginTime        | 2099-01-01T10:00:00Z
            -b 2099-01-01                | beginTime        | 2099-01-01T00:00:00Z
            --comment=for-the-record     | comment          | for-the-record
            """)
    void eachOptionLandsInTheJob(String directive, String field, String expected) {
        JsonNode job = submitHeld("#SBATCH " + directive + "\n");
        JsonNode value = job.get(field);
        assertThat(value).as(field + " of " + job).isNotNull();
        assertThat(value.isString() ? value.asString() : value.toString()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "#SBATCH {0} with --gpus-per-node=1 sets memoryMb to {1}")
    @CsvSource(delimiter = '|', textBlock = """
            --mem-per-gpu=4G | 4096
            """)
    void memoryPerGpuIsPerNodeMemoryForItsGpus(String directive, long expected) {
        JsonNode job = submitHeld("#SBATCH --gpus-per-node=1\n#SBATCH " + directive + "\n");
        assertThat(job.get("memoryMb").asLong()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "--export={0} sets {1}={2}")
    @CsvSource(delimiter = '|', textBlock = """
            ALL,STAGE=prod | STAGE | prod
            A=1,B=two      | B     | two
            """)
    void exportAssignmentsBecomeTheEnvironment(String export, String name, String value) {
        JsonNode job = submitHeld("#SBATCH --export=" + export + "\n");
        assertThat(job.get("environment").get(name).asString()).isEqualTo(value);
    }

    @ParameterizedTest(name = "a dependency written {0} is kept")
    @CsvSource(delimiter = '|', textBlock = """
            -d afterok:
            --dependency=afterany:
            """)
    void dependenciesNameAnExistingJob(String prefix) {
        long earlier = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "cpu", "hold", true))
                .json().get("jobId").asLong();
        JsonNode job = submitHeld("#SBATCH " + prefix + earlier + "\n");
        assertThat(job.get("dependency").asString()).endsWith(":" + earlier);
        assertThat(job.get("reason").asString()).isIn("None", "JobHeldUser", "Dependency");
    }

    @ParameterizedTest(name = "#SBATCH {0} is refused naming line 2")
    @CsvSource(delimiter = '|', textBlock = """
            --reservation=maint
            --nodes=many
            --time=1:2:3:4
            --array=9-1
            --gres=fpga:1
            --mem=lots
            --nodelist=gpu[1-
            --frobnicate
            """)
    void malformedOrUnknownOptionsAreRefusedAtTheirLine(String directive) {
        Response response = api.send("POST", "/api/v1/jobs", admin,
                Map.of("script", "#!/bin/bash\n#SBATCH " + directive + "\nhostname\n"));
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.isProblem()).isTrue();
        assertThat(response.json().get("errors").get(0).get("field").asString()).isIn("script:2", "reservation");
    }

    private JsonNode submitHeld(String directives) {
        Response response = api.send("POST", "/api/v1/jobs", admin,
                Map.of("script", "#!/bin/bash\n" + directives + "#SBATCH -H\nhostname\n"));
        assertThat(response.status()).as(directives + " -> " + response.body()).isEqualTo(201);
        String id = Long.toString(response.json().get("jobId").asLong());
        JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        return job;
    }
}
