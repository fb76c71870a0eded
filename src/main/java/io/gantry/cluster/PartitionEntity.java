package io.gantry.cluster;

import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

@Entity
@Table(name = "partitions")
class PartitionEntity {

    @Id
    private String name;
    private String nodes;
    private boolean isDefault;
    private Long defaultTimeSeconds;
    private Long maxTimeSeconds;
    private int priorityTier;
    @Enumerated(EnumType.STRING)
    private PartitionState state;
    /** The partition QOS now (null: none); see V58. */
    private String qos;
    /** The cluster file's partition QOS when last read: a change there wins over an earlier PATCH. */
    private String configuredQos;
    @Version
    private long version;

    protected PartitionEntity() {
    }

    /** A new partition starts in its configured state; from then on the store keeps it. */
    PartitionEntity(String name, PartitionState initialState) {
        this.name = name;
        this.state = initialState;
    }

    void applyShape(ClusterLayout.PartitionSpec spec) {
        this.nodes = spec.hostlist();
        this.isDefault = spec.isDefault();
        this.defaultTimeSeconds = spec.defaultTimeSeconds();
        this.maxTimeSeconds = spec.maxTimeSeconds();
        this.priorityTier = spec.priorityTier();
    }

    String name() {
        return name;
    }

    /**
     * Takes the cluster file's partition QOS when it is new or changed since last read; else the stored one
     * (set by PATCH) stays.
     */
    void applyConfiguredQos(String configured) {
        if (!java.util.Objects.equals(configured, configuredQos)) {
            qos = configured;
            configuredQos = configured;
        }
    }

    String qos() {
        return qos;
    }

    void setQos(String qos) {
        this.qos = qos;
    }

    PartitionState state() {
        return state;
    }

    void setState(PartitionState state) {
        this.state = state;
    }
}
