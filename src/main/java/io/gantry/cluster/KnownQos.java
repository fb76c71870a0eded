package io.gantry.cluster;

import java.util.List;

/**
 * The QOS names that exist, so that a partition QOS (cluster file {@code qos}, PATCH /partitions) names one.
 * Accounting owns the QOS; it answers through this interface so that the cluster feature does not depend on it.
 */
public interface KnownQos {

    /** Every QOS name, in name order. */
    List<String> qosNames();
}
