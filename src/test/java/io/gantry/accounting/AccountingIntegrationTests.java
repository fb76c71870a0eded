package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.StartEarly;
import tools.jackson.databind.JsonNode;

/**
 * Accounts, associations and QOS over REST on real PostgreSQL, and the limits they set: refused at
 * submission with the limit named, or holding jobs pending with Slurm's exact reason until usage
 * drops. The store is shared with every other test class, so each test makes its own accounts, QOS
 * and users, and never changes root, normal or admin.
 */
@GantryIntegrationTest
@StartEarly("jobs run to their end to be accounted")
class AccountingIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    // --- who may charge what ----------------------------------------------------------------------

    @Test
    void aJobForAnAccountTheUserIsNotInIsRejectedAsInvalidAccount() {
        String mine = account();
        String foreign = account();
        Person user = user(mine);

        Response response = submit(user.token(), Map.of("partition", "cpu", "account", foreign, "hold", true));

        assertFieldError(response, "account", "InvalidAccount");
        assertThat(message(response, "account")).contains("'" + foreign + "'").endsWith("their accounts: " + mine);
    }

    @Test
    void aJobWithoutAnAccountIsChargedToTheDefaultAccountWithQosNormal() {
        String mine = account();
        Person user = user(mine);

        Response response = submit(user.token(), Map.of("partition", "cpu", "hold", true));

        assertThat(response.status()).as(response.body()).isEqualTo(201);
        JsonNode job = job(response.json().get("jobId").asLong());
        assertThat(job.get("account").asString()).isEqualTo(mine);
        assertThat(job.get("qos").asString()).isEqualTo("normal");
        cancel(job.get("jobId").asLong());
    }

    @Test
    void aUserWithoutAnyAssociationIsToldHowToFixIt() {
        Person user = user(null);

        Response response = submit(user.token(), Map.of("partition", "cpu", "hold", true));

        assertFieldError(response, "account", "has no association");
        assertThat(message(response, "account")).contains("ADMIN").contains("defaultAccount")
                .contains("/api/v1/associations");
    }

    @Test
    void whoamiListsTheCallersAccounts() {
        String first = account();
        String second = account();
        Person user = user(first);
        created(api.send("POST", "/api/v1/associations", admin, Map.of("account", second, "user", user.name())));

        JsonNode whoami = api.get("/api/v1/auth/whoami", user.token()).json();

        assertThat(whoami.get("accounts").valueStream().map(JsonNode::asString).toList())
                .containsExactlyInAnyOrder(first, second);

        assertThat(api.send("DELETE", "/api/v1/users/" + user.name(), admin, null).status()).isEqualTo(204);
        assertThat(associations(user.name())).as("a deleted user's associations go with them").isEmpty();
        assertThat(api.send("DELETE", "/api/v1/accounts/" + second, admin, null).status()).isEqualTo(204);
    }

    @Test
    void aDefaultAccountMustExistAndGivingOneCreatesTheAssociation() {
        Response unknown = api.send("POST", "/api/v1/users", admin, Map.of("username", name("u"), "password",
                "secret-password", "defaultAccount", "no-such-account-" + suffix()));
        assertFieldError(unknown, "defaultAccount", "does not exist");

        String first = account();
        String second = account();
        Person user = user(first);
        Response changed = api.send("PATCH", "/api/v1/users/" + user.name(), admin, Map.of("defaultAccount", second));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().get("defaultAccount").asString()).isEqualTo(second);
        assertThat(associations(user.name())).extracting(a -> a.get("account").asString())
                .containsExactlyInAnyOrder(first, second);

        Response job = submit(user.token(), Map.of("partition", "cpu", "hold", true));
        assertThat(job(job.json().get("jobId").asLong()).get("account").asString()).isEqualTo(second);
        cancel(job.json().get("jobId").asLong());
    }

    // --- accounts ---------------------------------------------------------------------------------

    @Test
    void anAdminCreatesReadsChangesAndDeletesAnAccount() {
        String parent = account();
        String name = name("acct");
        Response created = api.send("POST", "/api/v1/accounts", admin, Map.of("name", name, "parent", parent,
                "description", "physics group", "organization", "science", "shares", 3));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("parent").asString()).isEqualTo(parent);
        assertThat(created.json().get("shares").asInt()).isEqualTo(3);

        Person user = user(null);
        assertThat(api.get("/api/v1/accounts/" + name, user.token()).json()).isEqualTo(created.json());
        assertThat(api.get("/api/v1/accounts?size=1000", user.token()).json().get("items").valueStream()
                .map(a -> a.get("name").asString())).contains("root", parent, name);
        assertThat(api.get("/api/v1/associations?account=" + name, user.token()).json().get("items").get(0)
                .get("user").isNull()).as("the account's own association").isTrue();

        Response changed = api.send("PATCH", "/api/v1/accounts/" + name, admin,
                Map.of("parent", "root", "shares", 5, "description", "moved"));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().get("parent").asString()).isEqualTo("root");
        assertThat(changed.json().get("shares").asInt()).isEqualTo(5);
        assertThat(changed.json().get("description").asString()).isEqualTo("moved");

        assertThat(api.send("DELETE", "/api/v1/accounts/" + name, admin, null).status()).isEqualTo(204);
        assertProblem(api.get("/api/v1/accounts/" + name, admin), 404);
    }

    @Test
    void badAccountWritesAre400sNamingTheFieldAnd409sSayingWhy() {
        String parent = account();
        String child = account(parent);

        assertFieldError(api.send("POST", "/api/v1/accounts", admin, Map.of("name", "bad name")), "name", "must match");
        assertFieldError(api.send("POST", "/api/v1/accounts", admin, Map.of("name", name("a"), "parent", "nope-" + suffix())),
                "parent", "does not exist");
        assertFieldError(api.send("POST", "/api/v1/accounts", admin, Map.of("name", name("a"), "shares", 0)),
                "shares", "at least 1");
        assertFieldError(api.send("PATCH", "/api/v1/accounts/" + parent, admin, Map.of("parent", child)),
                "parent", "its own ancestor");
        assertFieldError(api.send("PATCH", "/api/v1/accounts/" + parent, admin, Map.of("parent", parent)),
                "parent", "its own ancestor");
        assertProblem(api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent)), 409);
        assertProblem(api.send("DELETE", "/api/v1/accounts/root", admin, null), 409);
        assertProblem(api.send("DELETE", "/api/v1/accounts/" + parent, admin, null), 409);
        user(child);
        assertProblem(api.send("DELETE", "/api/v1/accounts/" + child, admin, null), 409);
        assertProblem(api.send("DELETE", "/api/v1/accounts/nope-" + suffix(), admin, null), 404);

        Person user = user(child);
        assertProblem(api.send("POST", "/api/v1/accounts", user.token(), Map.of("name", name("a"))), 403);
        assertProblem(api.send("DELETE", "/api/v1/accounts/" + child, user.token(), null), 403);
    }

    // --- QOS --------------------------------------------------------------------------------------

    @Test
    void anAdminCreatesChangesAndDeletesAQos() {
        String other = qos(Map.of());
        String name = name("qos");
        Response created = api.send("POST", "/api/v1/qos", admin, Map.ofEntries(Map.entry("name", name),
                Map.entry("priority", 100), Map.entry("maxWallSeconds", 3600), Map.entry("maxJobsPerUser", 4),
                Map.entry("maxSubmitJobsPerUser", 10), Map.entry("maxTresPerUser", "gres/gpu=16"),
                Map.entry("maxTresPerJob", "cpu=64,gres/gpu=8,mem=256G,node=2"), Map.entry("grpTres", "gres/gpu=64"),
                Map.entry("preempt", List.of(other)), Map.entry("preemptMode", "REQUEUE"),
                Map.entry("usageFactor", 2.0)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("maxTresPerJob").asString()).isEqualTo("cpu=64,mem=256G,node=2,gres/gpu=8");
        assertThat(created.json().get("preempt").get(0).asString()).isEqualTo(other);
        assertThat(api.get("/api/v1/qos/" + name, user(null).token()).json()).isEqualTo(created.json());

        Response changed = api.send("PATCH", "/api/v1/qos/" + name, admin, Map.of("maxWallSeconds", -1,
                "maxTresPerJob", "", "priority", 5));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().get("maxWallSeconds").isNull()).isTrue();
        assertThat(changed.json().get("maxTresPerJob").isNull()).isTrue();
        assertThat(changed.json().get("priority").asInt()).isEqualTo(5);
        assertThat(changed.json().get("maxJobsPerUser").asInt()).as("untouched").isEqualTo(4);

        assertProblem(api.send("DELETE", "/api/v1/qos/" + other, admin, null), 409);
        assertThat(api.send("DELETE", "/api/v1/qos/" + name, admin, null).status()).isEqualTo(204);
        assertThat(api.send("DELETE", "/api/v1/qos/" + other, admin, null).status()).isEqualTo(204);
        assertProblem(api.get("/api/v1/qos/" + name, admin), 404);
    }

    @Test
    void badQosWritesAre400sNamingTheFieldAnd409sSayingWhy() {
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "maxTresPerJob", "bogus=3")),
                "maxTresPerJob", "unknown TRES");
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "grpTres", "gres/gpu=lots")),
                "grpTres", "cpu=64");
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "preempt", List.of("nope-" + suffix()))),
                "preempt[0]", "does not exist");
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "preemptMode", "GANG")),
                "preemptMode", "REQUEUE, CANCEL, SUSPEND or CLUSTER");
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "preemptExemptSeconds", -5)),
                "preemptExemptSeconds", "-1 to clear");
        assertFieldError(api.send("POST", "/api/v1/qos", admin, Map.of("name", name("q"), "maxJobsPerUser", -5)),
                "maxJobsPerUser", "-1 to clear");
        assertProblem(api.send("POST", "/api/v1/qos", admin, Map.of("name", "normal")), 409);
        assertProblem(api.send("DELETE", "/api/v1/qos/normal", admin, null), 409);

        String used = qos(Map.of());
        String account = account();
        Person user = user(account);
        long association = association(account, user.name());
        patch("/api/v1/associations/" + association, Map.of("defaultQos", used));
        assertProblem(api.send("DELETE", "/api/v1/qos/" + used, admin, null), 409);
        assertProblem(api.send("POST", "/api/v1/qos", user.token(), Map.of("name", name("q"))), 403);
    }

    // --- associations -----------------------------------------------------------------------------

    @Test
    void anAdminAddsChangesAndRemovesAssociations() {
        String first = account();
        String second = account();
        Person user = user(first);

        Response created = api.send("POST", "/api/v1/associations", admin, Map.of("account", second, "user",
                user.name(), "shares", 2, "maxJobs", 3, "grpTres", "gres/gpu=4"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long id = created.json().get("id").asLong();
        assertThat(api.get("/api/v1/associations/" + id, user.token()).json()).isEqualTo(created.json());

        JsonNode changed = patch("/api/v1/associations/" + id, Map.of("maxJobs", -1, "grpTres", "cpu=8"));
        assertThat(changed.get("maxJobs").isNull()).isTrue();
        assertThat(changed.get("grpTres").asString()).isEqualTo("cpu=8");
        assertThat(changed.get("shares").asInt()).isEqualTo(2);

        assertProblem(api.send("POST", "/api/v1/associations", admin, Map.of("account", second, "user", user.name())), 409);
        assertFieldError(api.send("POST", "/api/v1/associations", admin, Map.of("account", second, "user", "nobody-" + suffix())),
                "user", "does not exist");
        assertFieldError(api.send("POST", "/api/v1/associations", admin, Map.of("account", "nope-" + suffix(), "user", user.name())),
                "account", "does not exist");
        assertFieldError(api.send("PATCH", "/api/v1/associations/" + id, admin, Map.of("grpTres", "gpus==2")),
                "grpTres", "TRES");
        assertFieldError(api.send("PATCH", "/api/v1/associations/" + id, admin, Map.of("defaultQos", "nope-" + suffix())),
                "defaultQos", "does not exist");
        long own = api.get("/api/v1/associations?account=" + first, admin).json().get("items").valueStream()
                .filter(a -> a.get("user").isNull()).findFirst().orElseThrow().get("id").asLong();
        assertProblem(api.send("DELETE", "/api/v1/associations/" + own, admin, null), 409);
        long defaultOne = association(first, user.name());
        assertProblem(api.send("DELETE", "/api/v1/associations/" + defaultOne, admin, null), 409);

        assertThat(api.send("DELETE", "/api/v1/associations/" + id, admin, null).status()).isEqualTo(204);
        assertThat(associations(user.name())).extracting(a -> a.get("account").asString()).containsExactly(first);
    }

    // --- submit-time limits -----------------------------------------------------------------------

    @Test
    void aJobOverItsQosMaxWallIsRefusedNamingMaxWallDurationPerJob() {
        Scenario s = scenario(Map.of("maxWallSeconds", 600), Map.of());

        assertFieldError(submit(s.user().token(), Map.of("partition", "cpu", "timeLimitSeconds", 601, "hold", true)),
                "timeLimitSeconds", "MaxWallDurationPerJob");
        Response capped = submit(s.user().token(), Map.of("partition", "cpu", "hold", true));
        assertThat(capped.status()).as(capped.body()).isEqualTo(201);
        assertThat(job(capped.json().get("jobId").asLong()).get("timeLimitSeconds").asLong())
                .as("no time limit given: the QOS's MaxWall").isEqualTo(600);
        cancel(capped.json().get("jobId").asLong());
    }

    @Test
    void aJobOverItsQosMaxTresPerJobIsRefusedNamingMaxTresPerJob() {
        Scenario s = scenario(Map.of("maxTresPerJob", "gres/gpu=1"), Map.of());

        assertFieldError(submit(s.user().token(), Map.of("partition", "gpu", "gpus", 2, "hold", true)),
                "qos", "MaxTRESPerJob");
        Response fits = submit(s.user().token(), Map.of("partition", "gpu", "gpus", 1, "hold", true));
        assertThat(fits.status()).as(fits.body()).isEqualTo(201);
        cancel(fits.json().get("jobId").asLong());
    }

    @Test
    void submissionsOverMaxSubmitJobsPerUserAreRefusedCountingEachArrayTask() {
        Scenario s = scenario(Map.of("maxSubmitJobsPerUser", 3), Map.of());

        long first = created(submit(s.user().token(), Map.of("partition", "cpu", "hold", true)));
        assertFieldError(submit(s.user().token(), Map.of("partition", "cpu", "hold", true, "array", "0-2")),
                "qos", "MaxSubmitJobsPerUser");
        long array = created(submit(s.user().token(), Map.of("partition", "cpu", "hold", true, "array", "0-1")));
        assertFieldError(submit(s.user().token(), Map.of("partition", "cpu", "hold", true)), "qos",
                "MaxSubmitJobsPerUser");

        cancel(first);
        long again = created(submit(s.user().token(), Map.of("partition", "cpu", "hold", true)));
        cancel(array);
        cancel(again);
    }

    @Test
    void aQosTheAssociationDoesNotAllowOrThatDoesNotExistIsRefused() {
        Scenario s = scenario(Map.of(), Map.of());
        String other = qos(Map.of());
        patch("/api/v1/associations/" + s.association(), Map.of("qos", List.of(s.qos())));

        assertFieldError(submit(s.user().token(), Map.of("partition", "cpu", "qos", other, "hold", true)),
                "qos", "does not allow");
        assertFieldError(submit(s.user().token(), Map.of("partition", "cpu", "qos", "nope-" + suffix(), "hold", true)),
                "qos", "does not exist");
    }

    @Test
    void changingAPendingJobsQosIsCheckedLikeASubmission() {
        Scenario s = scenario(Map.of(), Map.of());
        String strict = qos(Map.of("maxWallSeconds", 60));
        long id = created(submit(s.user().token(), Map.of("partition", "cpu", "hold", true, "timeLimitSeconds", 600)));

        assertFieldError(api.send("PATCH", "/api/v1/jobs/" + id, s.user().token(), Map.of("qos", strict)),
                "timeLimitSeconds", "MaxWallDurationPerJob");
        assertFieldError(api.send("PATCH", "/api/v1/jobs/" + id, s.user().token(), Map.of("qos", "nope-" + suffix())),
                "qos", "does not exist");
        Response moved = api.send("PATCH", "/api/v1/jobs/" + id, s.user().token(),
                Map.of("qos", strict, "timeLimitSeconds", 60));
        assertThat(moved.status()).as(moved.body()).isEqualTo(200);
        assertThat(moved.json().get("qos").asString()).isEqualTo(strict);
        cancel(id);
    }

    // --- run-time limits: pending with Slurm's reason, released when usage drops -------------------

    @Test
    void qosMaxJobsPerUserHoldsTheSecondJobUntilTheFirstEnds() {
        Scenario s = scenario(Map.of("maxJobsPerUser", 1), Map.of());
        assertHeldThenReleased(s, Map.of("partition", "cpu"), "QOSMaxJobsPerUserLimit");
    }

    @Test
    void qosMaxTresPerUserHoldsTheSecondGpuJobUntilTheFirstEnds() {
        Scenario s = scenario(Map.of("maxTresPerUser", "gres/gpu=1"), Map.of());
        assertHeldThenReleased(s, Map.of("partition", "gpu", "gpus", 1), "QOSMaxGRESPerUser");
    }

    @Test
    void qosGrpTresHoldsTheSecondGpuJobUntilTheFirstEnds() {
        Scenario s = scenario(Map.of("grpTres", "gres/gpu=1"), Map.of());
        assertHeldThenReleased(s, Map.of("partition", "gpu", "gpus", 1), "QOSGrpGRES");
    }

    @Test
    void associationMaxJobsHoldsTheSecondJobUntilTheFirstEnds() {
        Scenario s = scenario(Map.of(), Map.of("maxJobs", 1));
        assertHeldThenReleased(s, Map.of("partition", "cpu"), "AssocMaxJobsLimit");
    }

    @Test
    void associationGrpTresHoldsTheSecondGpuJobUntilTheFirstEnds() {
        Scenario s = scenario(Map.of(), Map.of("grpTres", "gres/gpu=1"));
        assertHeldThenReleased(s, Map.of("partition", "gpu", "gpus", 1), "AssocGrpGRES");
    }

    /** Two jobs that each fit: the first runs, the second waits with {@code reason}, then runs after the first. */
    private void assertHeldThenReleased(Scenario s, Map<String, Object> shape, String reason) {
        Map<String, Object> body = new HashMap<>(shape);
        body.put("simulatedRunSeconds", 4);
        body.put("timeLimitSeconds", 300);
        long first = created(submit(s.user().token(), body));
        long second = created(submit(s.user().token(), body));

        await().atMost(PATIENCE).until(() -> "RUNNING".equals(job(first).get("state").asString())
                && reason.equals(job(second).get("reason").asString()));
        JsonNode waiting = job(second);
        assertThat(waiting.get("state").asString()).isEqualTo("PENDING");
        assertThat(job(first).get("state").asString()).as("the limit held while the first ran").isIn("RUNNING",
                "COMPLETING", "COMPLETED");

        await().atMost(PATIENCE).until(() -> "COMPLETED".equals(job(second).get("state").asString()));
        JsonNode done = job(second);
        JsonNode before = job(first);
        assertThat(java.time.Instant.parse(done.get("startTime").asString()))
                .as("the second starts once the first has ended")
                .isAfterOrEqualTo(java.time.Instant.parse(before.get("endTime").asString()));
    }

    // --- fixtures ---------------------------------------------------------------------------------

    private record Person(String name, String token) {
    }

    /** A user in an account of their own whose association's default QOS is a QOS of their own. */
    private record Scenario(String account, String qos, Person user, long association) {
    }

    private Scenario scenario(Map<String, Object> qosLimits, Map<String, Object> associationLimits) {
        String qos = qos(qosLimits);
        String account = account();
        Person user = user(account);
        long association = association(account, user.name());
        Map<String, Object> change = new HashMap<>(associationLimits);
        change.put("defaultQos", qos);
        patch("/api/v1/associations/" + association, change);
        return new Scenario(account, qos, user, association);
    }

    private String account() {
        return account("root");
    }

    private String account(String parent) {
        String name = name("acct");
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", name, "parent", parent)));
        return name;
    }

    private String qos(Map<String, Object> limits) {
        String name = name("qos");
        Map<String, Object> body = new HashMap<>(limits);
        body.put("name", name);
        created(api.send("POST", "/api/v1/qos", admin, body));
        return name;
    }

    private Person user(String defaultAccount) {
        String name = name("u");
        Map<String, Object> body = new HashMap<>(Map.of("username", name, "password", "secret-password"));
        if (defaultAccount != null) {
            body.put("defaultAccount", defaultAccount);
        }
        Response created = api.send("POST", "/api/v1/users", admin, body);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return new Person(name, api.token(name, "secret-password"));
    }

    private long association(String account, String user) {
        return associations(user).stream().filter(a -> a.get("account").asString().equals(account)).findFirst()
                .orElseThrow().get("id").asLong();
    }

    private List<JsonNode> associations(String user) {
        return api.get("/api/v1/associations?user=" + user, admin).json().get("items").valueStream().toList();
    }

    private JsonNode patch(String path, Map<String, Object> body) {
        Response response = api.send("PATCH", path, admin, body);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    private Response submit(String token, Map<String, ?> body) {
        return api.send("POST", "/api/v1/jobs", token, body);
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private void cancel(long id) {
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
    }

    /** The 201's job id, account name or QOS name. */
    private static long created(Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        JsonNode id = response.json().get("jobId");
        return id == null ? 0 : id.asLong();
    }

    private static void assertProblem(Response response, int status) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.contentType()).isTrue();
    }

    private static void assertFieldError(Response response, String field, String text) {
        assertProblem(response, 400);
        assertThat(message(response, field)).as(response.body()).contains(text);
    }

    private static String message(Response response, String field) {
        return response.json().get("errors").valueStream().filter(e -> e.get("field").asString().equals(field))
                .map(e -> e.get("message").asString()).findFirst().orElse("<no error on " + field + ">");
    }

    private static String name(String prefix) {
        return prefix + suffix();
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
