package io.gantry.reservations;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;

import org.springframework.data.domain.Persistable;

/** A reservation's row; lists are stored comma-separated. */
@Entity
@Table(name = "reservations")
class ReservationEntity implements Persistable<String> {

    @Id
    private String name;
    private String nodes;
    private String partition;
    private Instant startTime;
    private Instant endTime;
    private String users;
    private String accounts;
    private String flags;
    private String createdBy;
    private Instant createdAt;
    @Version
    private long version;

    /**
     * While true (from the constructor until the row is stored or read) {@code save} inserts
     * (persist) instead of merging, so a second create of the same name is refused by the primary
     * key rather than written over the first (issue 28).
     */
    @Transient
    private boolean fresh;

    protected ReservationEntity() {
    }

    ReservationEntity(String name, String createdBy, Instant createdAt) {
        this.name = name;
        this.createdBy = createdBy;
        this.createdAt = createdAt;
        this.fresh = true;
    }

    @Override
    public String getId() {
        return name;
    }

    @Override
    public boolean isNew() {
        return fresh;
    }

    @PostLoad
    @PostPersist
    void stored() {
        fresh = false;
    }

    void set(String nodes, String partition, Instant start, Instant end, List<String> users, List<String> accounts,
            List<String> flags) {
        this.nodes = nodes;
        this.partition = partition;
        this.startTime = start;
        this.endTime = end;
        this.users = String.join(",", users);
        this.accounts = String.join(",", accounts);
        this.flags = String.join(",", flags);
    }

    String name() { return name; }
    String nodes() { return nodes; }
    String partition() { return partition; }
    Instant startTime() { return startTime; }
    Instant endTime() { return endTime; }
    List<String> users() { return split(users); }
    List<String> accounts() { return split(accounts); }
    List<String> flags() { return split(flags); }
    String createdBy() { return createdBy; }
    Instant createdAt() { return createdAt; }

    private static List<String> split(String csv) {
        return csv == null || csv.isEmpty() ? List.of() : Arrays.asList(csv.split(","));
    }
}
