package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.support.ApiClient;
import io.gantry.support.OwnDatabase;

/**
 * Guessing from one client address is slowed down whichever usernames it tries. A context of its
 * own, on a database of its own (so that it never shares the shared context's leader lock): the
 * shared one turns address throttling off, since every test signs in from 127.0.0.1.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "gantry.security.sign-in.address-throttling=true", "gantry.security.sign-in.address-free-failures=3"})
@ActiveProfiles("postgres")
@DirtiesContext
class SignInAddressThrottlingIntegrationTests {

    private static final String RUN = Long.toString(System.nanoTime() % 1_000_000_000L, 36);
    private static final String DATABASE = "gantry_sign_in_it_" + ProcessHandle.current().pid();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void anAddressThatGuessedManyUsernamesWaitsEvenForARightPassword() throws Exception {
        for (int guess = 1; guess <= 10; guess++) {
            int status = signIn("guess" + RUN + "-" + guess, "not-the-password").statusCode();
            if (guess <= 3) {
                assertThat(status).as("the first 3 failures are free").isEqualTo(401);
            } else {
                assertThat(status).as("guess " + guess).isIn(401, 429);
            }
        }

        HttpResponse<String> admin = signIn("admin", ApiClient.ADMIN_PASSWORD);

        assertThat(admin.statusCode()).as(admin.body()).isEqualTo(429);
        assertThat(admin.body()).contains("your address");
        assertThat(admin.headers().firstValue("Retry-After").map(Long::parseLong))
                .hasValueSatisfying(seconds -> assertThat(seconds).isPositive());
    }

    private HttpResponse<String> signIn(String username, String password) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/auth/tokens"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"username\":\"" + username + "\",\"password\":\""
                        + password + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
    }
}
