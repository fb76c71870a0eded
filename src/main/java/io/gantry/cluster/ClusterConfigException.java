package io.gantry.cluster;

import java.util.List;

/** The cluster configuration cannot be used; stops start-up with every problem listed by key. */
public class ClusterConfigException extends RuntimeException {

    private final List<String> problems;

    public ClusterConfigException(List<String> problems) {
        super("Invalid cluster configuration:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
