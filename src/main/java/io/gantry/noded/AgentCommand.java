package io.gantry.noded;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gantry agent --controller URL [--join-token-file FILE] ...}: the process that runs on every compute
 * node. Plain Java on purpose (no Spring, no web server), so it starts at once and costs the node
 * next to nothing while its jobs run. Exit codes: 2 for a bad command line, 1 when the controller
 * refuses the node.
 */
public final class AgentCommand {

    private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

    private AgentCommand() {
    }

    public static int run(String[] args) {
        quietLogging();
        return run(args, System.getenv(), System.err, Clock.systemUTC());
    }

    /**
     * Without Spring, logback starts unconfigured and logs at DEBUG (every HTTP exchange): the
     * agent logs at INFO, and {@code -Dgantry.agent.log-level=DEBUG} brings the detail back.
     */
    private static void quietLogging() {
        if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
                instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(ch.qos.logback.classic.Level.toLevel(System.getProperty("gantry.agent.log-level"),
                    ch.qos.logback.classic.Level.INFO));
        }
    }

    static int run(String[] args, Map<String, String> env, PrintStream err, Clock clock) {
        AgentOptions options;
        try {
            options = AgentOptions.parse(args, env, AgentCommand::hostname);
            if (options.joinToken() == null
                    && new CredentialStore(options.workDir()).forController(options.controller()).isEmpty()) {
                throw new IllegalArgumentException("the join token (" + AgentOptions.JOIN_TOKEN_ENV
                        + " or --join-token-file) is required: " + options.workDir() + " holds no credential for "
                        + options.controller());
            }
        } catch (IllegalArgumentException e) {
            err.println("agent: " + e.getMessage());
            err.println(AgentOptions.USAGE);
            return 2;
        }
        try {
            Files.createDirectories(options.workDir());
        } catch (IOException e) {
            err.println("agent: cannot create the work dir " + options.workDir() + ": " + e.getMessage());
            return 1;
        }
        NodeResources resources = NodeResources.detect(options);
        log.info("agent {} starting: {} CPUs, {} MB, {} GPU(s){}, work dir {}", options.name(), resources.cpus(),
                resources.memoryMb(), resources.gpus().size(),
                resources.gpuType() == null ? "" : " of type " + resources.gpuType(), options.workDir());
        return new Agent(options, resources, clock).run();
    }

    /** This machine's host name, as the kernel has it (no DNS lookup on the way to starting). */
    static String hostname() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (IOException e) {
            // not Linux
        }
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
