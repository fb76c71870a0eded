package io.gantry.steps;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

/**
 * The address each node's agent calls from, as this controller saw it: what a step's tasks get as
 * {@code MASTER_ADDR} for its first node (torchrun-style rendezvous needs an address the other nodes
 * reach, and the agent's own connection is the best one known). Kept in memory: agents call the leader
 * every few seconds, so a new leader learns them at once; a node not heard from yet is named by its name.
 */
@Component
public class NodeAddresses {

    private final Map<String, String> addresses = new ConcurrentHashMap<>();

    public void heard(String node, String address) {
        if (address != null && !address.isBlank() && !address.equals(addresses.get(node))) {
            addresses.put(node, address);
        }
    }

    String of(String node) {
        return addresses.getOrDefault(node, node);
    }
}
