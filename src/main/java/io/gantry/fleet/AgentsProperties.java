package io.gantry.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.agents.*}: how node agents join and how long the controller waits for them.
 * <ul>
 * <li>{@code join-token}: the cluster's join token; when unset, one is generated on the first start
 * into {@code <data-dir>/agent-join-token} (ADMINs read it at {@code GET /api/v1/agents/join-token}).</li>
 * <li>{@code default-partitions}: partitions a node that the configuration does not name joins;
 * empty refuses such nodes.</li>
 * <li>{@code heartbeat-timeout}: a node unheard for this long goes DOWN ("Not responding") and its
 * jobs end NODE_FAIL, or are requeued when they allow it (Slurm's SlurmdTimeout).</li>
 * <li>{@code poll-wait}: the longest a waiting agent's poll is held (capped at a third of the timeout).</li>
 * <li>{@code kill-wait}: time between SIGTERM and SIGKILL when a job is cancelled or times out (Slurm's KillWait).</li>
 * <li>{@code sync-interval}: how often an agent asks for a full reconciliation of its jobs.</li>
 * <li>{@code allow-root-jobs}: whether a job may run as root (uid 0) on a node; false refuses it at launch.</li>
 * <li>{@code user-map}: Gantry user name to Unix account name, for users whose names differ; others
 * run as the account of their own name.</li>
 * <li>{@code health-check}: a program every agent runs (as root) every {@code health-check-interval};
 * a non-zero exit drains the node with its output as the reason. {@code gpu-health-check}: agents
 * with GPUs also check them with {@code nvidia-smi}.</li>
 * <li>{@code prolog}, {@code epilog}: programs run as root on the node before and after each job.</li>
 * <li>{@code approve-new-nodes}: machines the configuration does not name stay DOWN "awaiting
 * approval" until an ADMIN approves them.</li>
 * <li>{@code report-skew}: how far an agent's clock may run ahead of the controller's in its reports.</li>
 * <li>{@code gpu-sample-interval}: how often agents read their GPUs' use with {@code nvidia-smi} (0: never);
 * the readings travel with their polls.</li>
 * </ul>
 */
@ConfigurationProperties("gantry.agents")
public record AgentsProperties(
        String joinToken,
        @DefaultValue List<String> defaultPartitions,
        @DefaultValue("30s") Duration heartbeatTimeout,
        @DefaultValue("10s") Duration pollWait,
        @DefaultValue("30s") Duration killWait,
        @DefaultValue("60s") Duration syncInterval,
        @DefaultValue("false") boolean allowRootJobs,
        @DefaultValue Map<String, String> userMap,
        String healthCheck,
        @DefaultValue("60s") Duration healthCheckInterval,
        @DefaultValue("true") boolean gpuHealthCheck,
        String prolog,
        String epilog,
        @DefaultValue("false") boolean approveNewNodes,
        @DefaultValue("30s") Duration reportSkew,
        @DefaultValue("10s") Duration gpuSampleInterval) {

    /** The Unix account a Gantry user's jobs run as. */
    public String unixUser(String gantryUser) {
        return gantryUser == null ? null : userMap.getOrDefault(gantryUser, gantryUser);
    }

    /** The poll wait actually used: short enough that a live agent is never taken for dead. */
    public Duration effectivePollWait() {
        Duration third = heartbeatTimeout.dividedBy(3);
        return pollWait.compareTo(third) < 0 ? pollWait : third;
    }
}
