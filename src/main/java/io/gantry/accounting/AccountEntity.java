package io.gantry.accounting;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

@Entity
@Table(name = "accounts")
class AccountEntity {

    @Id
    @Column(length = 64)
    private String name;

    @Column(length = 64)
    private String parent;

    @Column(length = 1024)
    private String description;

    @Column(length = 256)
    private String organization;

    @Column(nullable = false)
    private int shares;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Version
    private long version;

    protected AccountEntity() {
    }

    AccountEntity(String name, String parent, String description, String organization, int shares, Instant now) {
        this.name = name;
        this.parent = parent;
        this.description = description;
        this.organization = organization;
        this.shares = shares;
        this.createdAt = now;
    }

    String name() { return name; }
    String parent() { return parent; }
    String description() { return description; }
    String organization() { return organization; }
    int shares() { return shares; }
    Instant createdAt() { return createdAt; }

    void setParent(String parent) { this.parent = parent; }
    void setDescription(String description) { this.description = description; }
    void setOrganization(String organization) { this.organization = organization; }
    void setShares(int shares) { this.shares = shares; }

    AccountingViews.Account toView() {
        return new AccountingViews.Account(name, parent, description, organization, shares, createdAt);
    }
}
