package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SseClient;

/**
 * Tokens end when their terms change (a new password, other roles, the user deleted and created
 * again, a revocation), and password guessing is throttled: the 26th guess is 429 even when right.
 */
@GantryIntegrationTest
class TokenRevocationIntegrationTests {

    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    private static final AtomicInteger NEXT = new AtomicInteger();

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    // --- tokens end with their terms --------------------------------------------------------------

    @Test
    void aTokenFromBeforeAPasswordChangeIs401() {
        String name = createUser("USER");
        String old = api.token(name, password(name));
        assertThat(api.get("/api/v1/auth/whoami", old).status()).isEqualTo(200);

        assertThat(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("password", "another-password")).status())
                .isEqualTo(200);

        assertRevoked(api.get("/api/v1/auth/whoami", old));
        assertThat(api.get("/api/v1/auth/whoami", api.token(name, "another-password")).status()).isEqualTo(200);
    }

    @Test
    void aTokenFromBeforeARoleChangeIs401EvenForAPromotion() {
        String name = createUser("USER");
        String old = api.token(name, password(name));

        assertThat(api.send("PATCH", "/api/v1/users/" + name, admin, Map.of("roles", List.of("OPERATOR"))).status())
                .isEqualTo(200);

        assertRevoked(api.get("/api/v1/jobs", old));
        String fresh = api.token(name, password(name));
        assertThat(api.get("/api/v1/auth/whoami", fresh).json().get("roles").toString()).contains("OPERATOR");
    }

    @Test
    void aTokenOfADeletedUserDoesNotWorkForTheUserCreatedAgainUnderTheName() {
        String name = createUser("USER");
        String old = api.token(name, password(name));

        assertThat(api.send("DELETE", "/api/v1/users/" + name, admin, null).status()).isEqualTo(204);
        assertThat(api.send("POST", "/api/v1/users", admin, Map.of("username", name, "password", password(name)))
                .status()).isEqualTo(201);

        assertRevoked(api.get("/api/v1/auth/whoami", old));
        assertThat(api.get("/api/v1/auth/whoami", api.token(name, password(name))).status()).isEqualTo(200);
    }

    @Test
    void aUserRevokesTheirOwnTokensAndSignsInAgain() {
        String name = createUser("USER");
        String first = api.token(name, password(name));
        String second = api.token(name, password(name));
        String other = createUser("USER");
        String someoneElse = api.token(other, password(other));

        assertThat(api.send("POST", "/api/v1/auth/tokens/revoke", first, null).status()).isEqualTo(204);

        assertRevoked(api.get("/api/v1/auth/whoami", first));
        assertRevoked(api.get("/api/v1/auth/whoami", second));
        assertThat(api.get("/api/v1/auth/whoami", someoneElse).status()).as("only the caller's").isEqualTo(200);
        assertThat(api.get("/api/v1/auth/whoami", api.token(name, password(name))).status()).isEqualTo(200);
        assertThat(api.get("/api/v1/audit?entity=user&key=" + name, admin).json().get("items"))
                .as("revoking one's own tokens is not a staff change: only the creation is audited").hasSize(1);
    }

    @Test
    void anEventStreamOpenedWithARevokedTokenEndsAtTheNextHeartbeat() throws Exception {
        String name = createUser("USER");
        String token = api.token(name, password(name));
        String other = createUser("USER");
        try (SseClient revoked = SseClient.open(port, token, null);
                SseClient kept = SseClient.open(port, api.token(other, password(other)), null)) {
            revoked.awaitComment("connected");
            kept.awaitComment("connected");

            assertThat(api.send("POST", "/api/v1/auth/tokens/revoke", token, null).status()).isEqualTo(204);

            revoked.awaitEnd();
            kept.awaitComment("keep-alive");
            try (SseClient again = SseClient.open(port, token, null)) {
                assertThat(again.status()).as("and it cannot be reopened").isEqualTo(401);
            }
        }
    }

    @Test
    void anAdminRevokesAnotherUsersTokensByQueryOrBody() {
        String bob = createUser("USER");
        String bobs = api.token(bob, password(bob));

        assertThat(api.send("POST", "/api/v1/auth/tokens/revoke?user=" + bob, admin, null).status()).isEqualTo(204);
        assertRevoked(api.get("/api/v1/auth/whoami", bobs));
        assertThat(api.get("/api/v1/auth/whoami", admin).status()).as("the admin's own token").isEqualTo(200);

        String again = api.token(bob, password(bob));
        assertThat(api.send("POST", "/api/v1/auth/tokens/revoke", admin, Map.of("user", bob)).status()).isEqualTo(204);
        assertRevoked(api.get("/api/v1/auth/whoami", again));

        JsonNode trail = api.get("/api/v1/audit?entity=user&key=" + bob, admin).json().get("items");
        assertThat(trail).as("an ADMIN ending another user's tokens is audited, each time").hasSize(3);
        assertThat(trail.get(0).get("action").asString()).isEqualTo("revoke");
        assertThat(trail.get(1).get("action").asString()).isEqualTo("revoke");

        assertProblem(api.send("POST", "/api/v1/auth/tokens/revoke?user=ghost" + RUN, admin, null), 404, "not-found");
        assertProblem(api.send("POST", "/api/v1/auth/tokens/revoke?user=" + bob, admin, Map.of("user", "admin")), 400,
                "validation");
    }

    @Test
    void aUserMayNotRevokeAnotherUsersTokens() {
        String mallory = createUser("OPERATOR");
        String victim = createUser("USER");
        String victims = api.token(victim, password(victim));

        assertProblem(api.send("POST", "/api/v1/auth/tokens/revoke", api.token(mallory, password(mallory)),
                Map.of("user", victim)), 403, "forbidden");

        assertThat(api.get("/api/v1/auth/whoami", victims).status()).isEqualTo(200);
        assertProblem(api.send("POST", "/api/v1/auth/tokens/revoke", null, null), 401, "unauthenticated");
    }

    // --- sign-in throttling -----------------------------------------------------------------------

    @Test
    void theTwentySixthGuessIs429WithRetryAfterEvenWhenRight() throws Exception {
        String name = createUser("USER");
        for (int guess = 1; guess <= 25; guess++) {
            Response wrong = api.send("POST", "/api/v1/auth/tokens", null,
                    Map.of("username", name, "password", "wrong-guess-" + guess));
            assertThat(wrong.status()).as("guess " + guess).isIn(401, 429);
            if (guess <= 5) {
                assertThat(wrong.status()).as("the first 5 failures are free").isEqualTo(401);
            }
        }

        HttpResponse<String> right = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/api/v1/auth/tokens"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"" + name + "\",\"password\":\""
                        + password(name) + "\"}")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(right.statusCode()).as(right.body()).isEqualTo(429);
        assertThat(right.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(right.body()).contains("https://gantry.dev/problems/too-many-requests").doesNotContain("token\"");
        assertThat(right.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
                seconds -> assertThat(seconds).isBetween(1L, 300L));
        String other = createUser("USER");
        assertThat(api.token(other, password(other))).as("other users sign in as usual").isNotBlank();
    }

    @Test
    void aSuccessfulSignInClearsTheFailuresOfItsUsername() {
        String name = createUser("USER");
        for (int round = 0; round < 3; round++) {
            for (int guess = 0; guess < 4; guess++) {
                assertProblem(api.send("POST", "/api/v1/auth/tokens", null,
                        Map.of("username", name, "password", "wrong-guess-" + guess)), 401, "unauthenticated");
            }
            assertThat(api.token(name, password(name))).isNotBlank();
        }
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

    private static void assertRevoked(Response response) {
        assertProblem(response, 401, "unauthenticated");
        assertThat(response.json().get("detail").asString()).contains("revoked");
    }

    private static void assertProblem(Response response, int status, String type) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.isProblem()).as(response.contentType()).isTrue();
        assertThat(response.json().get("type").asString()).isEqualTo("https://gantry.dev/problems/" + type);
    }
}
