package io.gantry.accounting;

import java.time.Instant;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;

import org.springframework.data.domain.Persistable;

@Entity
@Table(name = "accounts")
class AccountEntity implements Persistable<String> {

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

    /** GPU TRES text (issue 16); null: no guarantee, no borrowing or lending limit. */
    @Column(name = "guaranteed_tres", length = 256)
    private String guaranteedTres;

    @Column(name = "max_borrow_tres", length = 256)
    private String maxBorrowTres;

    @Column(name = "max_lend_tres", length = 256)
    private String maxLendTres;

    @Version
    private long version;

    /**
     * While true (from the constructor until the row is stored or read) {@code save} inserts
     * (persist) instead of merging, so a second create of the same name is refused by the primary
     * key rather than written over the first (issue 28).
     */
    @Transient
    private boolean fresh;

    protected AccountEntity() {
    }

    AccountEntity(String name, String parent, String description, String organization, int shares, Instant now) {
        this.name = name;
        this.parent = parent;
        this.description = description;
        this.organization = organization;
        this.shares = shares;
        this.createdAt = now;
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

    String name() { return name; }
    String parent() { return parent; }
    String description() { return description; }
    String organization() { return organization; }
    int shares() { return shares; }
    Instant createdAt() { return createdAt; }
    String guaranteedTres() { return guaranteedTres; }
    String maxBorrowTres() { return maxBorrowTres; }
    String maxLendTres() { return maxLendTres; }

    void setGuaranteedTres(String v) { guaranteedTres = v; }
    void setMaxBorrowTres(String v) { maxBorrowTres = v; }
    void setMaxLendTres(String v) { maxLendTres = v; }

    void setParent(String parent) { this.parent = parent; }
    void setDescription(String description) { this.description = description; }
    void setOrganization(String organization) { this.organization = organization; }
    void setShares(int shares) { this.shares = shares; }

    AccountingViews.Account toView() {
        return new AccountingViews.Account(name, parent, description, organization, shares, createdAt,
                guaranteedTres, maxBorrowTres, maxLendTres);
    }

    /** Its place in the engine's quota tree. */
    io.gantry.engine.Quota toQuota() {
        return new io.gantry.engine.Quota(name, parent, io.gantry.engine.Quota.parseGpus(guaranteedTres),
                io.gantry.engine.Quota.parseGpus(maxBorrowTres), io.gantry.engine.Quota.parseGpus(maxLendTres));
    }

    /** {@code account} and every account below it. */
    static java.util.Set<String> below(String account, java.util.Map<String, String> parents) {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (String a : parents.keySet()) {
            int steps = 0;
            for (String up = a; up != null && steps++ < 64; up = parents.get(up)) {
                if (up.equals(account)) {
                    out.add(a);
                    break;
                }
            }
        }
        return out;
    }
}
