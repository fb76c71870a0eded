package io.gantry.agents;

import java.nio.file.Files;
import java.nio.file.Path;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;

import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import io.gantry.agent.protocol.AgentProtocol;
import io.gantry.agent.protocol.AgentProtocol.Commands;
import io.gantry.agent.protocol.AgentProtocol.Poll;
import io.gantry.agent.protocol.AgentProtocol.Registered;
import io.gantry.agent.protocol.AgentProtocol.Registration;
import io.gantry.agent.protocol.AgentProtocol.Reports;
import io.gantry.agent.protocol.AgentProtocol.ReportsAccepted;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * The agent protocol's endpoints (see {@link AgentProtocol}) and the join token for ADMINs. Agent
 * calls authenticate with the join token or their node's credential, checked here.
 */
@RestController
@Tag(name = "agents", description = "Node agents: joining, heartbeats, job launches and reports")
class AgentController {

    static final String JAR_PATH = AgentProtocol.BASE + "/gantry.jar";

    private final AgentService agents;
    private final AgentCredentials credentials;
    private final JoinToken joinToken;

    AgentController(AgentService agents, AgentCredentials credentials, JoinToken joinToken) {
        this.agents = agents;
        this.credentials = credentials;
        this.joinToken = joinToken;
    }

    @PostMapping(AgentProtocol.REGISTER)
    @Operation(operationId = "registerAgent", summary = "An agent joins (Bearer join token) or rejoins (Bearer node credential)")
    Registered register(@Parameter(hidden = true) @RequestHeader(value = "Authorization", required = false) String authorization,
            @RequestBody Registration registration, HttpServletRequest request) {
        return agents.register(authorization, registration, request.getRemoteAddr());
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/poll")
    @Operation(operationId = "pollAgent", summary = "An agent's heartbeat and long poll for commands (Bearer node credential)")
    DeferredResult<Commands> poll(@PathVariable String node,
            @Parameter(hidden = true) @RequestHeader(value = "Authorization", required = false) String authorization,
            @RequestBody(required = false) Poll poll, HttpServletRequest request) {
        credentials.require(node, authorization, request.getRemoteAddr());
        return agents.poll(node, poll);
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/reports")
    @Operation(operationId = "reportAgentJobs", summary = "An agent reports job starts and ends (Bearer node credential)")
    ReportsAccepted reports(@PathVariable String node,
            @Parameter(hidden = true) @RequestHeader(value = "Authorization", required = false) String authorization,
            @RequestBody Reports reports, HttpServletRequest request) {
        credentials.require(node, authorization, request.getRemoteAddr());
        if (reports == null || reports.reports() == null) {
            throw GantryException.badRequest("reports", "is required");
        }
        return new ReportsAccepted(agents.report(node, reports.reports()));
    }

    @Schema(name = "AgentJoinToken")
    record JoinTokenView(
            @Schema(description = "The cluster's join token") String joinToken,
            @Schema(description = "The command that adds a machine to this cluster") String agentCommand) {
    }

    @GetMapping(AgentProtocol.BASE + "/join-token")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "getJoinToken", summary = "The join token new node agents present (ADMIN)")
    JoinTokenView joinToken() {
        String base = ServletUriComponentsBuilder.fromCurrentContextPath().build().toUriString();
        return new JoinTokenView(joinToken.value(), "curl -fsSO " + base + JAR_PATH
                + " && java -jar gantry.jar agent --controller " + base + " --join-token " + joinToken.value());
    }

    /**
     * The jar this controller runs, so a new machine needs nothing but a JDK to become a node. Public:
     * it is the same open software, and holds no secret.
     */
    @GetMapping(value = JAR_PATH, produces = "application/java-archive")
    @Operation(operationId = "downloadAgentJar", summary = "The jar this controller runs: the agent for a new machine")
    ResponseEntity<Resource> jar() {
        String classPath = System.getProperty("java.class.path", "");
        Path jar = Path.of(classPath);
        if (classPath.contains(java.io.File.pathSeparator) || !classPath.endsWith(".jar") || !Files.isRegularFile(jar)) {
            throw new GantryException(ProblemType.NOT_FOUND, "This controller does not run from a jar (was it started "
                    + "with spring-boot:run?); copy target/gantry.jar to the new machine instead");
        }
        return ResponseEntity.ok()
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=gantry.jar")
                .body(new FileSystemResource(jar));
    }
}
