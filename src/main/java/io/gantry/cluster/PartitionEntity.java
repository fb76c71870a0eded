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

    PartitionState state() {
        return state;
    }

    void setState(PartitionState state) {
        this.state = state;
    }
}
