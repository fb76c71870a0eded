package io.gantry.cluster;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

import org.hibernate.annotations.DynamicUpdate;

/**
 * A node's row. Allocation counters are changed only by atomic SQL in {@link ClusterService}, so
 * updates here write only the columns they change: an operator's drain never overwrites them.
 */
@Entity
@DynamicUpdate
@Table(name = "nodes")
class NodeEntity {

    static final String AGENT_UP = "UP";
    static final String AGENT_NOT_RESPONDING = "NOT_RESPONDING";
    static final String NOT_RESPONDING_REASON = "Not responding";
    static final String AWAITING_APPROVAL_REASON = "awaiting approval";

    @Id
    private String name;
    private int cpus;
    private long memoryMb;
    private int gpus;
    private String gpuType;
    private String features;
    private String partitions;
    private String switchName;
    private String blockName;
    private String migInstances;
    private int shardsPerGpu;
    private boolean simulated;
    @Enumerated(EnumType.STRING)
    @Column(name = "admin_state")
    private AdminState adminState;
    private String reason;
    private String reasonUser;
    private Instant reasonTime;
    private int allocCpus;
    private long allocMemoryMb;
    private int allocGpus;
    private Instant lastHeartbeat;
    /** Null until an agent first registers, then {@link #AGENT_UP} or {@link #AGENT_NOT_RESPONDING}. */
    private String agentState;
    /** SHA-256 (hex) of the node's agent credential. */
    private String agentCredential;
    /** Joined through its agent rather than named by the configuration. */
    private boolean joined;
    /** Joined while new nodes needed an ADMIN's approval, and not approved yet (kept DOWN until then). */
    private boolean awaitingApproval;
    /** Until when an ADMIN lets one agent take this name again with the join token alone; null: not at all. */
    private Instant rejoinApprovedUntil;
    /** Null while powered on; else where power saving has it. */
    @Enumerated(EnumType.STRING)
    private PowerState powerState;
    private Instant powerSince;
    @Version
    private long version;

    protected NodeEntity() {
    }

    NodeEntity(String name) {
        this.name = name;
        this.adminState = AdminState.NONE;
    }

    /** Configuration wins for shape; state, reason and allocations stay as the store has them. */
    void applyShape(ClusterLayout.NodeSpec spec) {
        this.cpus = spec.cpus();
        this.memoryMb = spec.memoryMb();
        this.gpus = spec.gpus();
        this.gpuType = spec.gpuType();
        this.features = String.join(",", spec.features());
        this.partitions = String.join(",", spec.partitions());
        this.switchName = spec.switchName();
        this.blockName = spec.block();
        this.migInstances = ClusterLayout.MigInstance.encode(spec.mig());
        this.shardsPerGpu = spec.shardsPerGpu();
        this.simulated = spec.simulated();
        this.joined = false;
    }

    /** A node that joined through its agent takes the shape its agent reports. */
    void applyJoinedShape(ClusterLayout.NodeSpec spec) {
        applyShape(spec);
        this.joined = true;
    }

    /** Its agent registered (with a new credential, or {@code null} to keep the one it has). */
    void agentRegistered(String credentialHash, Instant at) {
        if (credentialHash != null) {
            this.agentCredential = credentialHash;
        }
        this.agentState = AGENT_UP;
        this.lastHeartbeat = at;
    }

    boolean notResponding() {
        return AGENT_NOT_RESPONDING.equals(agentState);
    }

    boolean joined() {
        return joined;
    }

    /** Kept out of service (DOWN, "awaiting approval") until an ADMIN approves it. */
    void awaitApproval(Instant at) {
        this.awaitingApproval = true;
        setAdminState(AdminState.DOWN, AWAITING_APPROVAL_REASON, AgentNodes.SYSTEM_USER, at);
    }

    /** An ADMIN let it in: into service, unless an operator has since taken it out for another reason. */
    void approve() {
        this.awaitingApproval = false;
        if (adminState == AdminState.DOWN && AWAITING_APPROVAL_REASON.equals(reason)) {
            setAdminState(AdminState.NONE, null, null, null);
        }
    }

    boolean awaitingApproval() {
        return awaitingApproval;
    }

    /** Its agent must join again with the join token. */
    void revokeCredential() {
        this.agentCredential = null;
    }

    boolean hasCredential() {
        return agentCredential != null;
    }

    /**
     * An agent has held this name: it has a credential, or had one (revoked). Such a name is taken
     * again with the join token alone only with an ADMIN's leave ({@link #allowRejoin}); a name no
     * agent held yet (a configured node's first agent, a new machine) is not.
     */
    boolean heldByAnAgent() {
        return agentCredential != null || agentState != null;
    }

    /** One join with the join token may take this name until {@code until}. */
    void allowRejoin(Instant until) {
        this.rejoinApprovedUntil = until;
    }

    Instant rejoinApprovedUntil() {
        return rejoinApprovedUntil;
    }

    /** Uses up the ADMIN's leave for a join with the join token: true when there was one still valid at {@code at}. */
    boolean takeRejoinLeave(Instant at) {
        boolean valid = rejoinApprovedUntil != null && at.isBefore(rejoinApprovedUntil);
        rejoinApprovedUntil = null;
        return valid;
    }

    NodeState state() {
        if (adminState == AdminState.DOWN) {
            return NodeState.DOWN;
        }
        boolean allocated = allocCpus > 0 || allocGpus > 0 || allocMemoryMb > 0;
        if (adminState == AdminState.DRAIN) {
            return allocated ? NodeState.DRAINING : NodeState.DRAINED;
        }
        if (powerState != null) {
            // Its agent is away on purpose: not DOWN, and usable after its resume program.
            return powerState.shown();
        }
        if (!simulated && lastHeartbeat == null) {
            return NodeState.UNKNOWN;
        }
        if (!simulated && notResponding()) {
            return NodeState.DOWN;
        }
        if (!allocated) {
            return NodeState.IDLE;
        }
        // Slurm calls a node ALLOCATED when all its CPUs are; on a GPU node all GPUs taken is as full.
        boolean full = allocCpus >= cpus || (gpus > 0 && allocGpus >= gpus);
        return full ? NodeState.ALLOCATED : NodeState.MIXED;
    }

    void setAdminState(AdminState adminState, String reason, String user, Instant time) {
        this.adminState = adminState;
        this.reason = reason;
        this.reasonUser = user;
        this.reasonTime = time;
    }

    void take(int cpus, long memoryMb, int gpus) {
        this.allocCpus += cpus;
        this.allocMemoryMb += memoryMb;
        this.allocGpus += gpus;
    }

    void clearAllocations() {
        this.allocCpus = 0;
        this.allocMemoryMb = 0;
        this.allocGpus = 0;
    }

    String name() {
        return name;
    }

    int cpus() {
        return cpus;
    }

    long memoryMb() {
        return memoryMb;
    }

    int gpus() {
        return gpus;
    }

    String gpuType() {
        return gpuType;
    }

    List<ClusterLayout.MigInstance> mig() {
        return ClusterLayout.MigInstance.decode(migInstances);
    }

    int shardsPerGpu() {
        return shardsPerGpu;
    }

    List<String> features() {
        return split(features);
    }

    List<String> partitions() {
        return split(partitions);
    }

    String switchName() {
        return switchName;
    }

    String blockName() {
        return blockName;
    }

    boolean simulated() {
        return simulated;
    }

    AdminState adminState() {
        return adminState;
    }

    /** The operator's reason, else why the node is down on its own. */
    String reason() {
        return reason == null && !simulated && notResponding() && powerState == null ? NOT_RESPONDING_REASON : reason;
    }

    PowerState powerState() {
        return powerState;
    }

    Instant powerSince() {
        return powerSince;
    }

    String reasonUser() {
        return reasonUser;
    }

    Instant reasonTime() {
        return reasonTime;
    }

    int allocCpus() {
        return allocCpus;
    }

    long allocMemoryMb() {
        return allocMemoryMb;
    }

    int allocGpus() {
        return allocGpus;
    }

    Instant lastHeartbeat() {
        return lastHeartbeat;
    }

    private static List<String> split(String csv) {
        return csv == null || csv.isEmpty() ? List.of() : Arrays.asList(csv.split(","));
    }
}
