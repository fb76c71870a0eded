package io.gantry.fleet;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.cluster.AgentNodes;
import io.gantry.control.LeaderLock;

/**
 * Per-node credentials: issued at a join, stored by the controller only as a SHA-256, presented by
 * the agent as a bearer token on every call. Verified hashes are cached, so a heartbeat costs no
 * query; a node that joins again, or whose credential an ADMIN revokes, stops working here at once.
 * The cache lives only through one unbroken spell of leadership: agents talk to the leader and every
 * change of credentials is made there, so a controller that led before, lost the lead and leads again
 * must not trust what it verified the first time.
 */
@Component
class AgentCredentials {

    private static final Logger log = LoggerFactory.getLogger(AgentCredentials.class);
    private static final String PREFIX = "gnc_";

    private final AgentNodes nodes;
    private final LeaderLock leader;
    private final SecureRandom random = new SecureRandom();
    /** Credential hash to node, for credentials checked against the store. */
    private final Map<String, String> verified = new ConcurrentHashMap<>();
    /**
     * Node to the hashes of {@link #verified} that name it, so forgetting a node at its join costs no
     * scan of every node's entry (a scan per join made 18,500 joins quadratic).
     */
    private final Map<String, Set<String>> hashesOf = new ConcurrentHashMap<>();
    private volatile boolean leading;

    AgentCredentials(AgentNodes nodes, LeaderLock leader) {
        this.nodes = nodes;
        this.leader = leader;
    }

    /** A new credential; its hash goes to the store, the credential itself only to the agent. */
    String issue() {
        return PREFIX + JoinToken.newSecret(random);
    }

    static String hash(String credential) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(credential.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The node a presented credential belongs to, if any. */
    Optional<String> nodeOf(String credential) {
        if (credential == null || !credential.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String hash = hash(credential);
        boolean leadingNow = leader.heldNow();
        if (!leadingNow || !leading) {
            verified.clear();
            hashesOf.clear();
            leading = leadingNow;
        }
        String cached = leadingNow ? verified.get(hash) : null;
        if (cached != null) {
            return Optional.of(cached);
        }
        Optional<String> node = nodes.nodeOfCredential(hash);
        if (leadingNow) {
            node.ifPresent(n -> remember(hash, n));
        }
        return node;
    }

    /** Checks that {@code authorization} carries {@code node}'s credential; 401 (logged) or 403 otherwise. */
    void require(String node, String authorization, String remote) {
        Optional<String> owner = nodeOf(bearer(authorization));
        if (owner.isEmpty()) {
            log.warn("Refused an agent call for node '{}' from {}: missing or unknown node credential", node, remote);
            throw new GantryException(ProblemType.UNAUTHENTICATED,
                    "Missing or unknown node credential; the agent must register again with the join token, on an "
                    + "ADMIN's leave (POST /api/v1/agents/" + node + "/rejoin) when its node has been joined before");
        }
        if (!owner.get().equals(node)) {
            log.warn("Refused an agent call for node '{}' from {}: the credential is node '{}''s", node, remote,
                    owner.get());
            throw new GantryException(ProblemType.FORBIDDEN,
                    "This credential belongs to node '" + owner.get() + "', not '" + node + "'");
        }
    }

    /** Forgets the cached credentials of {@code node} (it was given a new one). */
    void forget(String node) {
        hashesOf.computeIfPresent(node, (n, hashes) -> {
            hashes.forEach(hash -> verified.remove(hash, n));
            return null;
        });
    }

    private void remember(String hash, String node) {
        hashesOf.compute(node, (n, hashes) -> {
            Set<String> all = hashes == null ? ConcurrentHashMap.newKeySet() : hashes;
            all.add(hash);
            verified.put(hash, n);
            return all;
        });
    }

    /** Revokes {@code node}'s credential (404 when there is no such node): its agent must join again, on an ADMIN's leave. */
    void revoke(String node, String admin) {
        nodes.revokeCredential(node, admin);
        forget(node);
        log.warn("The credential of node '{}' was revoked by {}; its agent is refused until an ADMIN allows a new "
                + "join (POST /api/v1/agents/{}/rejoin)", node, admin, node);
    }

    static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return authorization.substring(7).strip();
    }
}
