package io.gantry.fleet;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.time.Clock;
import java.time.Instant;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Commands;
import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.Poll;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import io.gantry.noded.protocol.AgentProtocol.Reports;
import io.gantry.noded.protocol.AgentProtocol.ReportsAccepted;
import io.gantry.noded.protocol.AgentProtocol.StepReports;
import io.gantry.noded.protocol.StepStatProtocol;
import io.gantry.fleet.AgentAuthentication.AgentCaller;
import io.gantry.api.GantryException;
import io.gantry.api.InputBounds;
import io.gantry.api.ProblemType;
import io.gantry.cluster.AgentNodes;
import io.gantry.cluster.ClusterViews.NodeView;
import io.gantry.steps.StepService;
import io.gantry.steps.StepStats;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * The agent protocol's endpoints (see {@link AgentProtocol}), and for ADMINs the join token, its
 * rotation, node approval, leave to join again as a held node, and credential revocation. Agent calls authenticate with the join token or
 * their node's credential, checked by {@link AgentAuthentication} before their body is read.
 */
@RestController
@Tag(name = "agents", description = "Node agents: joining, heartbeats, job launches and reports")
class AgentController {

    static final String JAR_PATH = AgentProtocol.BASE + "/gantry.jar";
    /** Where {@code agentCommand} keeps the join token on a new machine (root's alone). */
    static final String TOKEN_FILE = "/etc/gantry/join-token";
    /** How long an ADMIN's leave to join again as a held node lasts. */
    static final java.time.Duration REJOIN_WINDOW = java.time.Duration.ofHours(1);

    private final AgentService agents;
    private final StepService steps;
    private final AgentCredentials credentials;
    private final JoinToken joinToken;
    private final AgentNodes nodes;
    private final Clock clock;
    private final JobOutputRequests outputs;
    private final StepStats stepStats;
    private final io.gantry.gpus.GpuSamples gpuSamples;

    AgentController(AgentService agents, StepService steps, AgentCredentials credentials, JoinToken joinToken, AgentNodes nodes,
            Clock clock, JobOutputRequests outputs, StepStats stepStats, io.gantry.gpus.GpuSamples gpuSamples) {
        this.gpuSamples = gpuSamples;
        this.outputs = outputs;
        this.stepStats = stepStats;
        this.agents = agents;
        this.steps = steps;
        this.credentials = credentials;
        this.joinToken = joinToken;
        this.nodes = nodes;
        this.clock = clock;
    }

    @PostMapping(AgentProtocol.REGISTER)
    @Operation(operationId = "registerAgent", summary = "An agent joins (Bearer join token) or rejoins (Bearer node credential)")
    Registered register(@Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody Registration registration, HttpServletRequest request) {
        AgentCaller checked = checked(caller);
        if (registration == null) {
            throw GantryException.badRequest("body", "is required");
        }
        InputBounds.noNulls("gpus", registration.gpus());
        InputBounds.noNulls("features", registration.features());
        InputBounds.noNulls("runningJobs", registration.runningJobs());
        return agents.register(checked, registration, request.getRemoteAddr());
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/poll")
    @Operation(operationId = "pollAgent", summary = "An agent's heartbeat and long poll for commands (Bearer node credential)")
    DeferredResult<Commands> poll(@PathVariable String node,
            @Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody(required = false) Poll poll, HttpServletRequest request) {
        checked(caller, node);
        if (poll != null) {
            InputBounds.noNulls("runningJobs", poll.runningJobs());
            AgentService.validate(poll);
            GpuSampleBounds.check(poll.gpuSamples());
        }
        if (poll != null && poll.gpuSamples() != null) {
            try {
                gpuSamples.record(node, poll.gpuSamples());
            } catch (org.springframework.dao.DataAccessException e) {
                // GPU readings never cost a node its heartbeat: these are lost, the next ones may be kept
                org.slf4j.LoggerFactory.getLogger(AgentController.class).warn(
                        "Node '{}': {} GPU reading(s) not stored: {}", node, poll.gpuSamples().size(), e.getMessage());
            }
        }
        return agents.poll(node, poll, request.getRemoteAddr());
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/reports")
    @Operation(operationId = "reportAgentJobs", summary = "An agent reports job starts and ends (Bearer node credential); "
            + "refused whole (400, naming reports[i]) when one is about a job not launched on this node or has an "
            + "impossible time")
    ReportsAccepted reports(@PathVariable String node,
            @Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody Reports reports) {
        checked(caller, node);
        if (reports == null || reports.reports() == null) {
            throw GantryException.badRequest("reports", "is required");
        }
        return new ReportsAccepted(agents.report(node, InputBounds.noNulls("reports", reports.reports())));
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/step-reports")
    @Operation(operationId = "reportAgentStepTasks", summary = "An agent reports its step tasks' output and exits "
            + "(Bearer node credential); refused whole (400, naming reports[i]) when one is about a task that does not "
            + "run on this node")
    ReportsAccepted stepReports(@PathVariable String node,
            @Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody StepReports reports) {
        checked(caller, node);
        if (reports == null || reports.reports() == null) {
            throw GantryException.badRequest("reports", "is required");
        }
        return new ReportsAccepted(steps.report(node, InputBounds.noNulls("reports", reports.reports())));
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/output")
    @Operation(operationId = "reportAgentJobOutput", summary = "An agent answers an OUTPUT_READ command with part of a "
            + "job's output or error file (Bearer node credential); applied 0 when no read of this node waits for it")
    ReportsAccepted output(@PathVariable String node,
            @Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody OutputChunk chunk) {
        checked(caller, node);
        if (chunk == null || chunk.requestId() == null || chunk.jobId() == null) {
            throw GantryException.badRequest("requestId", "is required, with jobId");
        }
        return new ReportsAccepted(outputs.answer(node, chunk) ? 1 : 0);
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/step-stats")
    @Operation(operationId = "reportAgentStepUsage", summary = "An agent answers a STEP_STAT command with the usage of "
            + "its tasks of a running step (Bearer node credential); applied 0 when no read of this node waits for it")
    ReportsAccepted stepStats(@PathVariable String node,
            @Parameter(hidden = true) @RequestAttribute(name = AgentAuthentication.CALLER, required = false)
            AgentCaller caller, @RequestBody StepStatProtocol.StepUsage usage) {
        checked(caller, node);
        if (usage == null || usage.requestId() == null || usage.jobId() == null) {
            throw GantryException.badRequest("requestId", "is required, with jobId");
        }
        InputBounds.noNulls("tasks", usage.tasks());
        return new ReportsAccepted(stepStats.answer(node, usage) ? 1 : 0);
    }

    /** {@link AgentAuthentication} vouches for every agent call; without it (a misrouted request) nothing is trusted. */
    private static AgentCaller checked(AgentCaller caller) {
        if (caller == null) {
            throw new GantryException(ProblemType.UNAUTHENTICATED, "Missing join token or node credential");
        }
        return caller;
    }

    private static void checked(AgentCaller caller, String node) {
        if (checked(caller).joining() || !caller.node().equals(node)) {
            throw new GantryException(ProblemType.UNAUTHENTICATED, "Missing or unknown node credential");
        }
    }

    @PostMapping(AgentProtocol.BASE + "/{node}/approve")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "approveAgentNode", summary = "Lets a node that joined unannounced into service (ADMIN); "
            + "409 when it is not awaiting approval")
    NodeView approve(@PathVariable String node, Principal principal) {
        return nodes.approve(node, principal.getName());
    }

    @Schema(name = "AgentRejoinLeave")
    record RejoinLeaveView(
            @Schema(description = "The node") String node,
            @Schema(description = "Until when one agent may join as this node with the join token alone") Instant until) {
    }

    /**
     * A name an agent has held is taken again only with its node credential: the join token alone, which
     * every machine that ever joined has seen, must not let another machine receive that node's jobs.
     * An agent that lost its credential, or whose credential was revoked, gets back in with this leave.
     */
    @PostMapping(AgentProtocol.BASE + "/{node}/rejoin")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "allowAgentRejoin", summary = "Lets one agent join again as a node an agent has held, "
            + "with the join token alone, within the next hour (ADMIN, audited): for a machine that lost its "
            + "credential or whose credential was revoked. Without it such a join is refused (409, audited as "
            + "join_refused); the join that uses it replaces the node's credential (audited as join). 404 for no "
            + "such node, 409 for a simulated node or one no agent has joined yet (its first join needs no leave)")
    RejoinLeaveView rejoin(@PathVariable String node, Principal principal) {
        AgentNodes.RejoinLeave leave = nodes.allowRejoin(node, principal.getName(), clock.instant(), REJOIN_WINDOW);
        return new RejoinLeaveView(leave.node(), leave.until());
    }

    @DeleteMapping(AgentProtocol.BASE + "/{node}/credential")
    @PreAuthorize("hasRole('ADMIN')")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "revokeAgentCredential", summary = "Revokes a node's credential (ADMIN, audited): its "
            + "agent is refused until an ADMIN allows a new join (POST /api/v1/agents/{node}/rejoin) and it joins "
            + "with the join token; the join token alone no longer takes the name")
    void revoke(@PathVariable String node, Principal principal) {
        credentials.revoke(node, principal.getName());
    }

    @Schema(name = "AgentJoinToken")
    record JoinTokenView(
            @Schema(description = "The cluster's join token") String joinToken,
            @Schema(description = "The command that adds a machine to this cluster, for a root shell on it: it "
                    + "writes the token into " + TOKEN_FILE + " (mode 0600) with shell builtins and starts the agent "
                    + "with --join-token-file, so the token is in no process's arguments") String agentCommand) {
    }

    @GetMapping(AgentProtocol.BASE + "/join-token")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "getJoinToken", summary = "The join token new node agents present (ADMIN)")
    JoinTokenView joinToken() {
        return view(joinToken.value());
    }

    @PostMapping(AgentProtocol.BASE + "/join-token/rotate")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "rotateJoinToken", summary = "Replaces the join token on every controller (ADMIN); the old "
            + "one stops working at once, nodes that joined keep their credentials")
    JoinTokenView rotateJoinToken(Principal principal) {
        return view(joinToken.rotate(principal.getName(), clock.instant()));
    }

    /**
     * The command: the token reaches the file through printf, a shell builtin (no process of its own, so
     * never in a {@code /proc/<pid>/cmdline}), under umask 077; the agent reads it from there.
     */
    private static JoinTokenView view(String token) {
        String base = ServletUriComponentsBuilder.fromCurrentContextPath().build().toUriString();
        String dir = TOKEN_FILE.substring(0, TOKEN_FILE.lastIndexOf('/'));
        return new JoinTokenView(token, "curl -fsSO " + base + JAR_PATH
                + " && mkdir -p -m 700 " + dir + " && (umask 077; printf '%s\\n' " + shellQuoted(token) + " > "
                + TOKEN_FILE + ") && java -jar gantry.jar agent --controller " + base + " --join-token-file "
                + TOKEN_FILE);
    }

    /** {@code text} as one word for a POSIX shell: single-quoted (a configured token may hold any character). */
    static String shellQuoted(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
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
        if (!selfContained(jar)) {
            throw new GantryException(ProblemType.NOT_FOUND, "This controller runs from an extracted jar whose "
                    + "libraries lie beside it (java -Djarmode=tools extract); alone on a new machine it would not start: "
                    + "copy the packaged gantry.jar there instead");
        }
        return ResponseEntity.ok()
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=gantry.jar")
                .body(new FileSystemResource(jar));
    }

    /**
     * Whether {@code jar} runs alone: its manifest names no {@code Class-Path} of libraries beside it, as
     * the jar Spring Boot's {@code extract} leaves does.
     */
    static boolean selfContained(Path jar) {
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            java.util.jar.Manifest manifest = file.getManifest();
            return manifest == null || manifest.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH) == null;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
