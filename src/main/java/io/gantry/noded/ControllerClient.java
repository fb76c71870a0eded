package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Commands;
import io.gantry.noded.protocol.AgentProtocol.Poll;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import io.gantry.noded.protocol.AgentProtocol.Reports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The agent's calls to the controller (register, poll, job reports, step reports) as JSON over the JDK's
 * HTTP client: no Spring and no web server in the agent, so it starts in a blink. Connection
 * trouble comes out as {@link IOException}; an answer other than 2xx as {@link Refused}, with the
 * status and the problem detail the controller gave.
 */
final class ControllerClient {

    /** The controller answered, but not with success. */
    static final class Refused extends Exception {
        private final int status;

        Refused(int status, String detail) {
            super("HTTP " + status + (detail == null || detail.isBlank() ? "" : ": " + detail));
            this.status = status;
        }

        int status() {
            return status;
        }

        boolean unauthorized() {
            return status == 401 || status == 403;
        }

        boolean serverError() {
            return status >= 500;
        }
    }

    private static final Duration SHORT_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http;
    private final java.util.List<URI> controllers;
    /** The controller that answered last: the leader, as far as this agent knows. */
    private volatile int current;

    ControllerClient(URI controller) {
        this(java.util.List.of(controller));
    }

    /**
     * Several controllers sharing one store: calls go to the one that answered last; when it cannot
     * be reached, or answers that it is not the leader (421), the next is tried, once round.
     */
    ControllerClient(java.util.List<URI> controllers) {
        this.controllers = java.util.List.copyOf(controllers);
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    Registered register(Registration registration, String bearer) throws IOException, InterruptedException, Refused {
        return post(AgentProtocol.REGISTER, registration, bearer, SHORT_TIMEOUT, Registered.class);
    }

    /** The long poll; {@code timeout} must exceed the controller's poll time. */
    Commands poll(String node, Poll poll, String credential, Duration timeout)
            throws IOException, InterruptedException, Refused {
        return post(AgentProtocol.poll(node), poll, credential, timeout, Commands.class);
    }

    void report(String node, Reports reports, String credential) throws IOException, InterruptedException, Refused {
        post(AgentProtocol.reports(node), reports, credential, SHORT_TIMEOUT, JsonNode.class);
    }

    void stepReports(String node, AgentProtocol.StepReports reports, String credential)
            throws IOException, InterruptedException, Refused {
        post(AgentProtocol.stepReports(node), reports, credential, SHORT_TIMEOUT, JsonNode.class);
    }

    /** The answer to an OUTPUT_READ command. */
    void output(String node, AgentProtocol.OutputChunk chunk, String credential)
            throws IOException, InterruptedException, Refused {
        post(AgentProtocol.output(node), chunk, credential, SHORT_TIMEOUT, JsonNode.class);
    }

    /** The answer to a STEP_STAT command. */
    void stepUsage(String node, io.gantry.noded.protocol.StepStatProtocol.StepUsage usage, String credential)
            throws IOException, InterruptedException, Refused {
        post(io.gantry.noded.protocol.StepStatProtocol.stepStats(node), usage, credential, SHORT_TIMEOUT,
                JsonNode.class);
    }

    /** The controller calls go to now. */
    URI controller() {
        return controllers.get(current);
    }

    private <T> T post(String path, Object body, String bearer, Duration timeout, Class<T> answer)
            throws IOException, InterruptedException, Refused {
        int first = current;
        for (int tried = 0;; tried++) {
            int index = (first + tried) % controllers.size();
            try {
                T result = post(controllers.get(index), path, body, bearer, timeout, answer);
                current = index;
                return result;
            } catch (IOException | Refused e) {
                boolean elsewhere = e instanceof java.net.ConnectException
                        || e instanceof java.net.http.HttpConnectTimeoutException
                        || e instanceof Refused r && (r.status() == 421 || r.status() == 503);
                if (!elsewhere || tried + 1 >= controllers.size()) {
                    throw e;
                }
            }
        }
    }

    private <T> T post(URI controller, String path, Object body, String bearer, Duration timeout, Class<T> answer)
            throws IOException, InterruptedException, Refused {
        HttpRequest request = HttpRequest.newBuilder(URI.create(controller + path))
                .timeout(timeout)
                .header("Authorization", "Bearer " + bearer)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(AgentJson.MAPPER.writeValueAsString(body),
                        StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        int status = response.statusCode();
        if (status < 200 || status >= 300) {
            throw new Refused(status, AgentJson.problemDetail(response.body()));
        }
        String text = response.body();
        try {
            return AgentJson.MAPPER.readValue(text == null || text.isBlank() ? "{}" : text, answer);
        } catch (JacksonException e) {
            throw new IOException("unreadable answer from " + path + ": " + e.getOriginalMessage(), e);
        }
    }
}
