package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

@Isolated // it reads the JVM's output, which classes running beside it would write to
@GantryIntegrationTest
@ExtendWith(OutputCaptureExtension.class)
class SecurityIntegrationTests {

    /** Names unique per run, so the suite passes on a store that earlier runs left rows in. */
    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    private static final AtomicInteger NEXT = new AtomicInteger();

    @LocalServerPort
    int port;

    @Autowired
    JwtEncoder encoder;

    @Autowired
    UserService userService;

    @Autowired
    TransactionTemplate transactions;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    // --- tokens ---------------------------------------------------------------------------------

    @Test
    void signingInIssuesABearerToken() {
        Response response = api.send("POST", "/api/v1/auth/tokens", null,
                Map.of("username", "admin", "password", ApiClient.ADMIN_PASSWORD, "lifetimeSeconds", 600));

        assertThat(response.status()).isEqualTo(201);
        JsonNode body = response.json();
        assertThat(body.get("token").asString()).matches("[\\w-]+\\.[\\w-]+\\.[\\w-]+");
        assertThat(body.get("tokenType").asString()).isEqualTo("Bearer");
        Instant expiresAt = Instant.parse(body.get("expiresAt").asString());
        assertThat(expiresAt).isBetween(Instant.now().plusSeconds(540), Instant.now().plusSeconds(660));
    }

    @Test
    void aWrongPasswordAndAnUnknownUserGetTheSame401() {
        Response wrong = api.send("POST", "/api/v1/auth/tokens", null, Map.of("username", "admin", "password", "not-it-at-all"));
        Response unknown = api.send("POST", "/api/v1/auth/tokens", null, Map.of("username", "nobody" + RUN, "password", "not-it-at-all"));

        assertProblem(wrong, 401, "unauthenticated");
        assertProblem(unknown, 401, "unauthenticated");
        assertThat(wrong.json().get("detail")).isEqualTo(unknown.json().get("detail"));
    }

    @Test
    void aLifetimeAboveTheMaximumIs400() {
        Response response = api.send("POST", "/api/v1/auth/tokens", null,
                Map.of("username", "admin", "password", ApiClient.ADMIN_PASSWORD, "lifetimeSeconds", 365L * 86400));

        assertValidation(response, "lifetimeSeconds");
        assertValidation(api.send("POST", "/api/v1/auth/tokens", null,
                Map.of("username", "admin", "password", ApiClient.ADMIN_PASSWORD, "lifetimeSeconds", 0)), "lifetimeSeconds");
        assertValidation(api.send("POST", "/api/v1/auth/tokens", null, Map.of("password", "whatever-it-is")), "username");
    }

    @Test
    void signingInWorksEvenWithAStaleTokenAttached() {
        Response response = api.send("POST", "/api/v1/auth/tokens", "stale.garbage.token",
                Map.of("username", "admin", "password", ApiClient.ADMIN_PASSWORD));

        assertThat(response.status()).isEqualTo(201);
    }

    // --- who may call -----------------------------------------------------------------------------

    @Test
    void withoutATokenTheApiAnswers401ProblemJson() {
        Response response = api.get("/api/v1/auth/whoami", null);

        assertProblem(response, 401, "unauthenticated");
        assertThat(response.json().get("detail").asString()).contains("bearer token");
        assertProblem(api.get("/api/v1/users", null), 401, "unauthenticated");
        assertProblem(api.get("/api/v1/no-such-thing", null), 401, "unauthenticated");
    }

    @Test
    void aGarbageTokenIs401SayingSo() {
        Response response = api.get("/api/v1/auth/whoami", "not-a-jwt");

        assertProblem(response, 401, "unauthenticated");
        assertThat(response.json().get("detail").asString()).contains("invalid or expired");
    }

    @Test
    void anExpiredTokenIs401SayingSo() {
        Instant past = Instant.now().minusSeconds(7200);
        String expired = sign(JwtClaimsSet.builder().issuer("gantry").subject("admin").issuedAt(past)
                .expiresAt(past.plusSeconds(600)).claim("roles", List.of("ADMIN")).build());

        Response response = api.get("/api/v1/auth/whoami", expired);

        assertProblem(response, 401, "unauthenticated");
        assertThat(response.json().get("detail").asString()).contains("expired");
    }

    @Test
    void aTokenFromAnotherIssuerIs401() {
        Instant now = Instant.now();
        String foreign = sign(JwtClaimsSet.builder().issuer("someone-else").subject("admin").issuedAt(now)
                .expiresAt(now.plusSeconds(600)).claim("roles", List.of("ADMIN")).build());

        assertProblem(api.get("/api/v1/auth/whoami", foreign), 401, "unauthenticated");
    }

    @Test
    void whoamiNamesTheCallerAndTheirRoles() {
        Response response = api.get("/api/v1/auth/whoami", admin);

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("username").asString()).isEqualTo("admin");
        assertThat(strings(response.json().get("roles"))).containsExactly("ADMIN");
        assertThat(response.json().get("accounts").isArray()).isTrue();
        assertThat(strings(response.json().get("accounts"))).as("the bootstrap admin is in root").contains("root");
    }

    @Test
    void aUserIsForbiddenFromManagingUsers() {
        String user = createUser("USER");
        String token = api.token(user, password(user));

        assertProblem(api.get("/api/v1/users", token), 403, "forbidden");
        assertProblem(api.send("POST", "/api/v1/users", token, Map.of("username", "x" + RUN, "password", "password1")),
                403, "forbidden");
        assertThat(api.get("/api/v1/auth/whoami", token).status()).isEqualTo(200);
    }

    @Test
    void anOperatorIsForbiddenFromManagingUsersToo() {
        String operator = createUser("OPERATOR");

        assertProblem(api.get("/api/v1/users", api.token(operator, password(operator))), 403, "forbidden");
    }

    @Test
    void publicEndpointsNeedNoToken() {
        assertThat(api.get("/actuator/health", null).status()).isEqualTo(200);
        assertThat(api.get("/v3/api-docs", null).status()).isEqualTo(200);
        assertThat(api.get("/swagger-ui/index.html", null).status()).isEqualTo(200);
        // ApiClient asks for JSON, which the Prometheus endpoint does not speak (406): enough to show no 401.
        assertThat(api.get("/actuator/prometheus", null).status()).isNotIn(401, 403);
    }

    // --- users ------------------------------------------------------------------------------------

    @Test
    void anAdminCreatesReadsListsChangesAndDeletesAUser() {
        String name = "carol" + RUN;
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "carol-password", "roles", List.of("OPERATOR"),
                        "defaultAccount", "root"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().get("username").asString()).isEqualTo(name);
        assertThat(strings(created.json().get("roles"))).containsExactly("OPERATOR");
        assertThat(created.json().get("defaultAccount").asString()).isEqualTo("root");
        assertThat(created.json().get("enabled").asBoolean()).isTrue();
        assertThat(created.json().has("password")).isFalse();
        assertThat(created.body()).doesNotContain("carol-password");

        Response read = api.get("/api/v1/users/" + name, admin);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json()).isEqualTo(created.json());

        Response list = api.get("/api/v1/users?page=0&size=1000", admin);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().get("page").asInt()).isZero();
        assertThat(list.json().get("size").asInt()).isEqualTo(1000);
        assertThat(list.json().get("total").asLong()).isGreaterThanOrEqualTo(2);
        List<String> names = new ArrayList<>();
        list.json().get("items").forEach(u -> names.add(u.get("username").asString()));
        assertThat(names).contains("admin", name).isSorted();

        Response changed = api.send("PATCH", "/api/v1/users/" + name, admin,
                Map.of("roles", List.of("USER"), "password", "new-carol-password"));
        assertThat(changed.status()).isEqualTo(200);
        assertThat(strings(changed.json().get("roles"))).containsExactly("USER");
        assertThat(api.send("POST", "/api/v1/auth/tokens", null, Map.of("username", name, "password", "carol-password"))
                .status()).isEqualTo(401);
        assertThat(api.token(name, "new-carol-password")).isNotBlank();

        assertThat(api.send("DELETE", "/api/v1/users/" + name, admin, null).status()).isEqualTo(204);
        assertProblem(api.get("/api/v1/users/" + name, admin), 404, "not-found");
    }

    @Test
    void aNewUserIsAUserUnlessTold() {
        String name = "dave" + RUN;
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", "dave-password"));

        assertThat(created.status()).isEqualTo(201);
        assertThat(strings(created.json().get("roles"))).containsExactly("USER");
        assertThat(created.json().get("defaultAccount").isNull()).isTrue();
    }

    @Test
    void badInputToCreateIs400NamingTheField() {
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("username", "Bad Name", "password", "password1")),
                "username");
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("username", "9starts-with-digit", "password", "password1")),
                "username");
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("username", "a".repeat(33), "password", "password1")),
                "username");
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("password", "password1")), "username");
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("username", "eve" + RUN, "password", "short")),
                "password");
        assertValidation(api.send("POST", "/api/v1/users", admin, Map.of("username", "eve" + RUN)), "password");
        assertValidation(api.send("POST", "/api/v1/users", admin,
                Map.of("username", "eve" + RUN, "password", "password1", "roles", List.of("USER", "KING"))), "roles[1]");
        assertValidation(api.send("POST", "/api/v1/users", admin,
                Map.of("username", "eve" + RUN, "password", "password1", "defaultAccount", "a".repeat(65))), "defaultAccount");
        Response malformed = api.send("POST", "/api/v1/users", admin, "{not json");
        assertProblem(malformed, 400, "malformed-request");
        assertProblem(api.get("/api/v1/users/eve" + RUN, admin), 404, "not-found");
    }

    @Test
    void badPagingIs400NamingTheParameter() {
        assertValidation(api.get("/api/v1/users?size=1001", admin), "size");
        assertValidation(api.get("/api/v1/users?page=-1", admin), "page");
    }

    @Test
    void aDuplicateUsernameIs409() {
        String name = createUser("USER");

        Response duplicate = api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", "password1"));

        assertProblem(duplicate, 409, "conflict");
        assertThat(duplicate.json().get("detail").asString()).contains(name);
    }

    @Test
    void unknownUsersAre404() {
        String ghost = "ghost" + RUN;
        assertProblem(api.get("/api/v1/users/" + ghost, admin), 404, "not-found");
        assertProblem(api.send("PATCH", "/api/v1/users/" + ghost, admin, Map.of("enabled", false)), 404, "not-found");
        assertProblem(api.send("DELETE", "/api/v1/users/" + ghost, admin, null), 404, "not-found");
    }

    @Test
    void badInputToUpdateIs400NamingTheField() {
        String name = createUser("USER");

        assertValidation(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("password", "short")), "password");
        assertValidation(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("roles", List.of())), "roles");
        assertValidation(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("roles", List.of("ROOT"))), "roles[0]");
    }

    @Test
    void adminsCannotDeleteOrDisableThemselves() {
        assertProblem(api.send("DELETE", "/api/v1/users/admin", admin, null), 409, "conflict");
        assertProblem(api.send("PATCH", "/api/v1/users/admin", admin, Map.of("enabled", false)), 409, "conflict");
    }

    @Test
    void theLastEnabledAdminCannotBeDeletedDemotedOrDisabled() {
        // In a transaction that is rolled back: disable every other admin, then try to remove the last.
        transactions.executeWithoutResult(status -> {
            status.setRollbackOnly();
            for (int page = 0; ; page++) {
                var users = userService.list(io.gantry.api.PageRequest.of(page, 1000));
                users.items().stream()
                        .filter(u -> u.enabled() && u.roles().contains(Role.ADMIN) && !u.username().equals("admin"))
                        .forEach(u -> userService.update(u.username(),
                                new UserService.UserChange(null, null, false, null), "admin"));
                if (users.items().size() < 1000) {
                    break;
                }
            }
            assertLastAdmin(() -> userService.delete("admin", "someone-else"));
            assertLastAdmin(() -> userService.update("admin",
                    new UserService.UserChange(null, EnumSet.of(Role.OPERATOR), null, null), "someone-else"));
            assertLastAdmin(() -> userService.update("admin",
                    new UserService.UserChange(null, null, false, null), "someone-else"));
        });
    }

    @Test
    void anotherAdminCanBeRemovedWhileOneRemains() {
        String second = createUser("ADMIN");
        String token = api.token(second, password(second));

        assertThat(api.send("PATCH", "/api/v1/users/" + second, admin, Map.of("roles", List.of("USER"))).status())
                .isEqualTo(200);
        // Its token still says ADMIN, but the store no longer does: a token from before a role change is refused.
        assertProblem(api.get("/api/v1/users", token), 401, "unauthenticated");
        String demoted = api.token(second, password(second));
        assertProblem(api.get("/api/v1/users", demoted), 403, "forbidden");
        assertThat(api.send("DELETE", "/api/v1/users/" + second, admin, null).status()).isEqualTo(204);
        assertProblem(api.get("/api/v1/auth/whoami", demoted), 401, "unauthenticated");
    }

    @Test
    void aDisabledUserCannotSignInAndLosesTheTokenTheyHave() {
        String name = createUser("USER");
        String token = api.token(name, password(name));
        assertThat(api.get("/api/v1/auth/whoami", token).status()).isEqualTo(200);

        Response disabled = api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("enabled", false));
        assertThat(disabled.status()).isEqualTo(200);
        assertThat(disabled.json().get("enabled").asBoolean()).isFalse();

        assertProblem(api.send("POST", "/api/v1/auth/tokens", null, Map.of("username", name, "password", password(name))),
                401, "unauthenticated");
        Response withOldToken = api.get("/api/v1/auth/whoami", token);
        assertProblem(withOldToken, 401, "unauthenticated");
        assertThat(withOldToken.json().get("detail").asString()).contains("disabled");

        assertThat(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("enabled", true)).status()).isEqualTo(200);
        assertThat(api.token(name, password(name))).isNotBlank();
    }

    // --- OpenAPI and logs -------------------------------------------------------------------------

    @Test
    void theOpenApiDocumentDeclaresBearerAuthAndNamesEveryOperation() {
        JsonNode doc = api.get("/v3/api-docs", null).json();

        JsonNode scheme = doc.get("components").get("securitySchemes").get("bearerAuth");
        assertThat(scheme.get("type").asString()).isEqualTo("http");
        assertThat(scheme.get("scheme").asString()).isEqualTo("bearer");
        assertThat(scheme.get("bearerFormat").asString()).isEqualTo("JWT");
        assertThat(doc.get("security").get(0).has("bearerAuth")).isTrue();
        assertThat(doc.get("components").get("schemas").has("ProblemDetail")).isTrue();

        Map<String, JsonNode> operations = new HashMap<>();
        doc.get("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            assertThat(op.getValue().has("operationId")).as(op.getKey() + " " + path.getKey()).isTrue();
            assertThat(op.getValue().get("tags").size()).as(op.getKey() + " " + path.getKey()).isEqualTo(1);
            operations.put(op.getValue().get("operationId").asString(), op.getValue());
        }));
        assertThat(operations).containsKeys("createToken", "getWhoami", "listUsers", "getUser", "createUser",
                "updateUser", "deleteUser");
        assertThat(operations.get("createToken").get("security").isEmpty()).isTrue();
        assertThat(operations.get("createToken").get("responses").has("201")).isTrue();
        assertThat(operations.get("createUser").get("responses").has("201")).isTrue();
        JsonNode notFound = operations.get("getUser").get("responses").get("404");
        assertThat(notFound.get("content").get("application/problem+json").get("schema").get("$ref").asString())
                .isEqualTo("#/components/schemas/ProblemDetail");
        assertThat(operations.get("listUsers").get("responses").has("401")).isTrue();
        assertThat(operations.get("listUsers").get("responses").has("403")).isTrue();
        assertThat(operations.get("createUser").get("responses").get("409").get("content")
                .has("application/problem+json")).isTrue();
        assertThat(operations.get("getUser").toString()).doesNotContain("CurrentUser");
        assertThat(operations.get("deleteUser").get("parameters").size()).isEqualTo(1);
    }

    @Test
    void eachRequestIsLoggedOnceWithoutSecrets(CapturedOutput output) {
        api.get("/api/v1/auth/whoami", admin);

        String line = output.getOut().lines().filter(l -> l.contains("io.gantry.requests"))
                .filter(l -> l.contains("/api/v1/auth/whoami")).reduce((a, b) -> b).orElseThrow();
        assertThat(line).contains("GET /api/v1/auth/whoami 200").contains("user=admin");
        assertThat(output.getOut()).doesNotContain(admin).doesNotContain(ApiClient.ADMIN_PASSWORD);
    }

    // --- helpers ----------------------------------------------------------------------------------

    private String createUser(String role) {
        String name = role.toLowerCase() + RUN + "-" + NEXT.incrementAndGet();
        Response response = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", password(name), "roles", List.of(role)));
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return name;
    }

    private static String password(String username) {
        return username + "-password";
    }

    private String sign(JwtClaimsSet claims) {
        return encoder.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
                .getTokenValue();
    }

    private static void assertLastAdmin(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(GantryException.class, e -> {
            assertThat(e.type()).isEqualTo(ProblemType.CONFLICT);
            assertThat(e.getMessage()).contains("last enabled ADMIN");
        });
    }

    private static void assertProblem(Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.contentType()).isTrue();
        assertThat(response.json().get("type").asString()).isEqualTo("https://gantry.dev/problems/" + type);
        assertThat(response.json().get("status").asInt()).isEqualTo(status);
        assertThat(response.json().get("title").asString()).isNotBlank();
        assertThat(response.json().get("detail").asString()).isNotBlank();
    }

    private static void assertValidation(Response response, String field) {
        assertProblem(response, 400, "validation");
        List<String> fields = new ArrayList<>();
        response.json().get("errors").forEach(e -> fields.add(e.get("field").asString()));
        assertThat(fields).as(response.body()).contains(field);
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> values = new java.util.LinkedHashSet<>();
        array.forEach(v -> values.add(v.asString()));
        return values;
    }
}
