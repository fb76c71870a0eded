package io.gantry.accounting;

import static io.gantry.accounting.AccountFields.*;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.accounting.AccountingViews.Account;
import io.gantry.accounting.AccountingViews.AccountRequest;
import io.gantry.accounting.AccountingViews.Association;
import io.gantry.accounting.AccountingViews.AssociationRequest;
import io.gantry.accounting.AccountingViews.EngineLimits;
import io.gantry.accounting.AccountingViews.Qos;
import io.gantry.accounting.AccountingViews.QosRequest;
import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.UniqueKey;
import io.gantry.jobs.ActiveJobs;
import io.gantry.jobs.Charge;
import io.gantry.jobs.Charges;
import io.gantry.security.User;
import io.gantry.security.UserService;

/**
 * Accounts (a tree under {@code root}), QOS and associations, like Slurm's slurmdbd: what they are,
 * who may charge which account with which QOS, and the limits the scheduler enforces.
 */
@Service
public class AccountingService implements Charges {

    public static final String ROOT = "root";
    public static final String NORMAL = "normal";
    /** How long the scheduler may use limits read before, for writes made through another controller. */
    private static final Duration LIMITS_TTL = Duration.ofSeconds(5);

    private final FairShareService fairShare;
    private final BudgetService budgets;

    private final AccountRepository accounts;
    private final AssociationRepository associations;
    private final QosRepository qos;
    private final UserService users;
    private final ActiveJobs activeJobs;
    private final io.gantry.cluster.ClusterService cluster;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    private final AtomicLong generation = new AtomicLong();
    private volatile CachedLimits cached;
    private final org.springframework.transaction.support.TransactionTemplate readOnly;

    private record CachedLimits(EngineLimits limits, Instant readAt) {
    }

    AccountingService(AccountRepository accounts, AssociationRepository associations, QosRepository qos,
            UserService users, ActiveJobs activeJobs, ApplicationEventPublisher events, Clock clock,
            FairShareService fairShare, org.springframework.transaction.PlatformTransactionManager transactions,
            BudgetService budgets, io.gantry.cluster.ClusterService cluster) {
        this.budgets = budgets;
        this.cluster = cluster;
        this.readOnly = new org.springframework.transaction.support.TransactionTemplate(transactions);
        this.readOnly.setReadOnly(true);
        this.fairShare = fairShare;
        this.accounts = accounts;
        this.associations = associations;
        this.qos = qos;
        this.users = users;
        this.activeJobs = activeJobs;
        this.events = events;
        this.clock = clock;
    }

    // --- what jobs and the scheduler ask ----------------------------------------------------------

    @Override
    public io.gantry.engine.Qos engineQos(String name) {
        return engineLimits().qos().stream().filter(q -> q.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * The account and QOS a job of {@code user} is charged to: {@code account} or the user's default
     * account, {@code qosName} or the association's default QOS (else {@code normal}). Every error is
     * a 400 naming {@code account} or {@code qos}.
     */
    @Override
    public Charge charge(String user, String account, String qosName) {
        // Every submission asks this; the answer changes only with accounts, associations, QOS or the
        // user's default account, each of which clears the cache.
        String key = user + "\n" + (account == null ? "" : account) + "\n" + (qosName == null ? "" : qosName);
        CachedCharge hit = charges.get(key);
        Instant now = clock.instant();
        if (hit != null && (now.isBefore(hit.readAt().plus(LIMITS_TTL)) || !hit.refreshing().compareAndSet(false, true))) {
            // Fresh, or old and another request is reading it again: a change made here clears the cache at
            // once, so an old answer is only one that another controller's change has not reached yet.
            return hit.charge();
        }
        long before = generation.get();
        Charge charge;
        try {
            charge = readOnly.execute(status -> readCharge(user, account, qosName));
        } catch (RuntimeException e) {
            if (hit != null) {
                charges.remove(key, hit);
            }
            throw e;
        }
        if (generation.get() == before) {
            if (charges.size() > 10_000) {
                charges.clear();
            }
            charges.put(key, new CachedCharge(charge, now, new java.util.concurrent.atomic.AtomicBoolean()));
        }
        return charge;
    }

    /** A charge as read, when, and whether a request is reading it again (one does; the others keep this one). */
    private record CachedCharge(Charge charge, Instant readAt, java.util.concurrent.atomic.AtomicBoolean refreshing) {
    }

    private final java.util.concurrent.ConcurrentHashMap<String, CachedCharge> charges =
            new java.util.concurrent.ConcurrentHashMap<>();

    @Order(Ordered.HIGHEST_PRECEDENCE)
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(io.gantry.security.UserChanged event) {
        generation.incrementAndGet();
        charges.clear();
    }

    private Charge readCharge(String user, String account, String qosName) {
        List<AssociationEntity> mine = associations.findByUserOrderByAccount(user);
        List<String> names = mine.stream().map(AssociationEntity::account).toList();
        if (mine.isEmpty()) {
            throw GantryException.badRequest("account", "InvalidAccount: user '" + user
                    + "' has no association, so cannot submit jobs; an ADMIN must give them one, e.g. "
                    + "PATCH /api/v1/users/" + user + " {\"defaultAccount\": \"<account>\"} or POST /api/v1/associations "
                    + "{\"account\": \"<account>\", \"user\": \"" + user + "\"}");
        }
        String chosen = account;
        if (chosen == null || chosen.isBlank()) {
            chosen = users.find(user).map(User::defaultAccount).filter(names::contains).orElse(names.get(0));
        }
        String name = chosen;
        AssociationEntity association = mine.stream().filter(a -> a.account().equals(name)).findFirst()
                .orElseThrow(() -> GantryException.badRequest("account", "InvalidAccount: user '" + user
                        + "' has no association with account '" + name + "'; their accounts: "
                        + String.join(", ", names)));
        String q = qosName == null || qosName.isBlank()
                ? (association.defaultQos() == null ? NORMAL : association.defaultQos()) : qosName;
        QosEntity limits = allowedQos(association, q);
        return submitLimits(association, new Charge(name, q, limits.toEngine(), limits.maxSubmitJobsPerUser(),
                association.maxSubmitJobs()));
    }

    /**
     * The charge with the submit limits of the tree above {@code own} (the user's association): its
     * MaxSubmitJobs, else the nearest account's above it (Slurm propagates Max limits down), and the
     * GrpSubmitJobs of every level up to the root, each account's with the accounts below it.
     */
    private Charge submitLimits(AssociationEntity own, Charge charge) {
        Integer maxSubmit = own.maxSubmitJobs();
        List<Charge.GroupSubmitLimit> groups = new ArrayList<>();
        if (own.grpSubmitJobs() != null) {
            groups.add(new Charge.GroupSubmitLimit(own.account(), own.user(), own.grpSubmitJobs(), Set.of()));
        }
        java.util.Map<String, String> parents = null;
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String a = own.account(); a != null && seen.add(a); a = parents.get(a)) {
            AssociationEntity level = associations.findByAccountAndUser(a, null).orElse(null);
            if (parents == null) {
                parents = new java.util.HashMap<>();
                for (AccountEntity acc : accounts.findAll()) {
                    parents.put(acc.name(), acc.parent());
                }
            }
            if (level == null) {
                continue;
            }
            if (maxSubmit == null) {
                maxSubmit = level.maxSubmitJobs();
            }
            if (level.grpSubmitJobs() != null) {
                groups.add(new Charge.GroupSubmitLimit(a, null, level.grpSubmitJobs(), AccountEntity.below(a, parents)));
            }
        }
        return new Charge(charge.account(), charge.qos(), charge.limits(), charge.maxSubmitJobsPerUser(), maxSubmit,
                groups);
    }

    private QosEntity allowedQos(AssociationEntity association, String name) {
        QosEntity q = qos.findById(name).orElseThrow(() -> GantryException.badRequest("qos", "InvalidQOS: QOS '"
                + name + "' does not exist; known QOS: " + String.join(", ",
                        qos.findAllByOrderByName().stream().map(QosEntity::name).toList())));
        List<String> allowed = association.qos();
        if (!allowed.isEmpty() && !allowed.contains(name) && !name.equals(association.defaultQos())) {
            throw GantryException.badRequest("qos", "InvalidQOS: the association of user '" + association.user()
                    + "' in account '" + association.account() + "' does not allow QOS '" + name + "'; allowed: "
                    + String.join(", ", allowed));
        }
        return q;
    }

    /**
     * Every QOS and association as the engine takes them. Read at most every few seconds, and again
     * right after a change here.
     */
    public EngineLimits engineLimits() {
        CachedLimits c = cached;
        Instant now = clock.instant();
        if (c != null && now.isBefore(c.readAt().plus(LIMITS_TTL))) {
            return c.limits();
        }
        long before = generation.get();
        List<QosEntity> allQos = qos.findAll();
        java.util.Map<String, Long> grace = new java.util.HashMap<>();
        allQos.stream().filter(q -> q.graceSeconds() != null).forEach(q -> grace.put(q.name(), q.graceSeconds()));
        List<AccountEntity> allAccounts = accounts.findAll();
        java.util.Map<String, String> parents = new java.util.HashMap<>();
        allAccounts.forEach(a -> parents.put(a.name(), a.parent()));
        EngineLimits limits = new EngineLimits(allQos.stream().map(QosEntity::toEngine).toList(),
                associations.findAll().stream().map(a -> a.toEngine(a.user() == null ? 1.0
                        : fairShare.tree().factor(a.account(), a.user()), parents.get(a.account()))).toList(),
                allAccounts.stream().map(AccountEntity::toQuota).toList(), grace);
        if (generation.get() == before) {
            cached = new CachedLimits(limits, now);
        }
        return limits;
    }

    /** Every TRES-minutes budget as the engine takes it (issue 32); cached as {@link #engineLimits()} is. */
    public io.gantry.engine.Budgets engineBudgets() {
        return budgets.engineBudgets();
    }

    @Order(Ordered.HIGHEST_PRECEDENCE)
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(AccountingChanged event) {
        generation.incrementAndGet();
        cached = null;
        charges.clear();
    }

    // --- accounts ---------------------------------------------------------------------------------

    @Transactional(readOnly = true)
    public List<Account> listAccounts() {
        return accounts.findAllByOrderByName().stream().map(AccountEntity::toView).toList();
    }

    @Transactional(readOnly = true)
    public Account account(String name) {
        return findAccount(name).toView();
    }

    @Transactional
    public Account createAccount(AccountRequest request) {
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        String name = request.name();
        checkName("name", name);
        String parent = request.parent() == null || request.parent().isBlank() ? ROOT : request.parent();
        if (!accounts.existsById(parent)) {
            throw GantryException.badRequest("parent", "account '" + parent + "' does not exist");
        }
        int shares = shares(request.shares(), 1);
        if (accounts.existsById(name)) {
            throw accountExists(name);
        }
        AccountEntity account = new AccountEntity(name, parent, blankToNull(request.description()),
                blankToNull(request.organization()), shares, clock.instant().truncatedTo(ChronoUnit.MICROS));
        AccountQuotas.apply(account, request, accounts::findAll);
        // The check above answers the common case; of two creates that both passed it, the primary
        // key lets one insert and refuses the other, which is then the same 409.
        UniqueKey.insert(() -> accounts.saveAndFlush(account), () -> accountExists(name));
        associations.saveAndFlush(new AssociationEntity(name, null, shares));
        changed("account " + name);
        return account.toView();
    }

    private static GantryException accountExists(String name) {
        return GantryException.conflict("Account '" + name + "' already exists");
    }

    @Transactional
    public Account updateAccount(String name, AccountRequest request) {
        AccountEntity account = findAccount(name);
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (request.name() != null && !request.name().equals(name)) {
            throw GantryException.badRequest("name", "cannot be changed");
        }
        if (request.parent() != null) {
            if (ROOT.equals(name)) {
                throw GantryException.badRequest("parent", "root is the top of the tree and has no parent");
            }
            String parent = request.parent();
            if (!accounts.existsById(parent)) {
                throw GantryException.badRequest("parent", "account '" + parent + "' does not exist");
            }
            for (String up = parent; up != null; up = accounts.findById(up).map(AccountEntity::parent).orElse(null)) {
                if (up.equals(name)) {
                    throw GantryException.badRequest("parent", "account '" + parent + "' is '" + name
                            + "' or below it; an account cannot be its own ancestor");
                }
            }
            account.setParent(parent);
        }
        if (request.description() != null) {
            account.setDescription(blankToNull(request.description()));
        }
        if (request.organization() != null) {
            account.setOrganization(blankToNull(request.organization()));
        }
        if (request.shares() != null) {
            int shares = shares(request.shares(), 1);
            account.setShares(shares);
            associations.findAccountOwn(name).ifPresent(a -> a.setShares(shares));
        }
        AccountQuotas.apply(account, request, accounts::findAll);
        accounts.saveAndFlush(account);
        changed("account " + name);
        return account.toView();
    }

    @Transactional
    public void deleteAccount(String name) {
        AccountEntity account = findAccount(name);
        if (ROOT.equals(name)) {
            throw GantryException.conflict("Account root is the top of the tree and cannot be deleted");
        }
        if (accounts.existsByParent(name)) {
            throw GantryException.conflict("Account '" + name + "' has child accounts; delete or move them first");
        }
        if (associations.anyUserIn(name)) {
            throw GantryException.conflict("Account '" + name + "' has user associations; delete them first");
        }
        if (activeJobs.anyInAccount(name)) {
            throw GantryException.conflict("Account '" + name + "' has pending or running jobs");
        }
        associations.findAccountOwn(name).ifPresent(associations::delete);
        associations.flush();
        accounts.delete(account);
        accounts.flush();
        changed("account " + name);
    }

    private AccountEntity findAccount(String name) {
        return accounts.findById(name).orElseThrow(() -> GantryException.notFound("Account", name));
    }

    // --- associations -----------------------------------------------------------------------------

    @Transactional(readOnly = true)
    public List<Association> listAssociations(String account, String user) {
        List<AssociationEntity> all = user != null ? associations.findByUserOrderByAccount(user)
                : account != null ? associations.findByAccountOrderByUser(account)
                : associations.findAllByOrderByAccountAscUserAsc();
        return all.stream().filter(a -> account == null || a.account().equals(account))
                .map(viewer()).toList();
    }

    @Transactional(readOnly = true)
    public Association association(long id) {
        return view(findAssociation(id));
    }

    @Transactional
    public Association createAssociation(AssociationRequest request) {
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        List<FieldError> errors = new ArrayList<>();
        if (request.account() == null || !accounts.existsById(request.account())) {
            errors.add(new FieldError("account", request.account() == null ? "is required"
                    : "account '" + request.account() + "' does not exist"));
        }
        Optional<User> user = request.user() == null ? Optional.empty() : users.find(request.user());
        if (request.user() == null) {
            errors.add(new FieldError("user", "is required (an account's own association comes with the account)"));
        } else if (user.isEmpty()) {
            errors.add(new FieldError("user", "user '" + request.user() + "' does not exist"));
        }
        throwIfAny(errors);
        if (associations.findByAccountAndUser(request.account(), request.user()).isPresent()) {
            throw associationExists(request);
        }
        AssociationEntity association = new AssociationEntity(request.account(), request.user(), 1);
        apply(association, request);
        // Of two creates that both passed the check, uk_associations_account_user lets one insert.
        UniqueKey.insert(() -> associations.saveAndFlush(association), () -> associationExists(request));
        if (user.get().defaultAccount() == null) {
            // Like sacctmgr: a user's first account becomes their default.
            users.setDefaultAccount(request.user(), request.account());
        }
        changed("association " + association.id());
        return view(association);
    }

    private static GantryException associationExists(AssociationRequest request) {
        return GantryException.conflict("User '" + request.user() + "' already has an association with account '"
                + request.account() + "'");
    }

    @Transactional
    public Association updateAssociation(long id, AssociationRequest request) {
        AssociationEntity association = findAssociation(id);
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (request.account() != null && !request.account().equals(association.account())) {
            throw GantryException.badRequest("account", "cannot be changed; create another association");
        }
        if (request.user() != null && !request.user().equals(association.user())) {
            throw GantryException.badRequest("user", "cannot be changed; create another association");
        }
        apply(association, request);
        if (association.user() == null && request.shares() != null) {
            accounts.findById(association.account()).ifPresent(a -> a.setShares(association.shares()));
        }
        associations.saveAndFlush(association);
        changed("association " + id);
        return view(association);
    }

    @Transactional
    public void deleteAssociation(long id) {
        AssociationEntity association = findAssociation(id);
        String user = association.user();
        if (user == null) {
            throw GantryException.conflict("This is account '" + association.account()
                    + "''s own association; delete the account instead");
        }
        if (activeJobs.anyOfUserInAccount(user, association.account())) {
            throw GantryException.conflict("User '" + user + "' has pending or running jobs in account '"
                    + association.account() + "'");
        }
        List<String> others = associations.findByUserOrderByAccount(user).stream().map(AssociationEntity::account)
                .filter(a -> !a.equals(association.account())).toList();
        boolean wasDefault = users.find(user).map(User::defaultAccount).filter(association.account()::equals)
                .isPresent();
        if (wasDefault && !others.isEmpty()) {
            throw GantryException.conflict("Account '" + association.account() + "' is user '" + user
                    + "''s default account; give them another defaultAccount (one of " + String.join(", ", others)
                    + ") first");
        }
        associations.delete(association);
        associations.flush();
        if (wasDefault) {
            users.setDefaultAccount(user, null);
        }
        changed("association " + id);
    }

    private void apply(AssociationEntity association, AssociationRequest request) {
        List<FieldError> errors = new ArrayList<>();
        if (request.shares() != null) {
            if (request.shares() < 1) {
                errors.add(new FieldError("shares", "must be at least 1, was " + request.shares()));
            } else {
                association.setShares(request.shares());
            }
        }
        if (request.maxJobs() != null) {
            association.setMaxJobs(limit("maxJobs", request.maxJobs(), errors));
        }
        if (request.maxSubmitJobs() != null) {
            association.setMaxSubmitJobs(limit("maxSubmitJobs", request.maxSubmitJobs(), errors));
        }
        if (request.grpTres() != null) {
            tres("grpTres", request.grpTres(), errors, association::setGrpTres);
        }
        if (request.grpJobs() != null) {
            association.setGrpJobs(limit("grpJobs", request.grpJobs(), errors));
        }
        if (request.grpSubmitJobs() != null) {
            association.setGrpSubmitJobs(limit("grpSubmitJobs", request.grpSubmitJobs(), errors));
        }
        if (request.maxTresPerJob() != null) {
            tres("maxTresPerJob", request.maxTresPerJob(), errors, association::setMaxTresPerJob);
        }
        if (request.maxTresPerNode() != null) {
            tres("maxTresPerNode", request.maxTresPerNode(), errors, association::setMaxTresPerNode);
        }
        if (request.maxWallSeconds() != null) {
            long v = request.maxWallSeconds();
            if (v == -1) {
                association.setMaxWallSeconds(null);
            } else if (v < 1) {
                errors.add(new FieldError("maxWallSeconds", "must be 1 or more seconds, or -1 to clear it; was " + v));
            } else {
                association.setMaxWallSeconds(v);
            }
        }
        if (request.defaultQos() != null) {
            if (request.defaultQos().isBlank()) {
                association.setDefaultQos(null);
            } else if (!qos.existsById(request.defaultQos())) {
                errors.add(new FieldError("defaultQos", "QOS '" + request.defaultQos() + "' does not exist"));
            } else {
                association.setDefaultQos(request.defaultQos());
            }
        }
        if (request.qos() != null) {
            association.setQos(qosNames("qos", request.qos(), errors));
        }
        association.budget().apply(request.grpTresMins(), request.grpTresRunMins(), request.maxTresMinsPerJob(),
                request.grpWallSeconds(), errors);
        BudgetLimits.rawUsage(request.rawUsage(), errors);
        throwIfAny(errors);
        if (request.rawUsage() != null) {
            fairShare.resetUsage(association.account(), association.user(),
                    association.user() == null ? budgets.accountsBelow(association.account()) : List.of());
        }
    }

    private java.util.function.Function<AssociationEntity, Association> viewer() {
        BudgetService.Usage usage = budgets.usage();
        return a -> a.toView(usage.minutes(a.account(), a.user()), usage.seconds(a.account(), a.user()).wall(),
                usage.billingMinutes(a.account(), a.user()));
    }

    private Association view(AssociationEntity association) {
        return viewer().apply(association);
    }

    private Qos view(QosEntity entity) {
        return entity.toView(budgets.usage());
    }

    private AssociationEntity findAssociation(long id) {
        return associations.findById(id).orElseThrow(() -> GantryException.notFound("Association", Long.toString(id)));
    }

    // --- QOS --------------------------------------------------------------------------------------

    @Transactional(readOnly = true)
    public List<Qos> listQos() {
        BudgetService.Usage usage = budgets.usage();
        return qos.findAllByOrderByName().stream().map(q -> q.toView(usage)).toList();
    }

    @Transactional(readOnly = true)
    public Qos qos(String name) {
        return view(findQos(name));
    }

    @Transactional
    public Qos createQos(QosRequest request) {
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        checkName("name", request.name());
        QosEntity entity = new QosEntity(request.name());
        apply(entity, request);
        if (qos.existsById(request.name())) {
            throw qosExists(request.name());
        }
        // Of two creates that both passed the check, the primary key lets one insert.
        UniqueKey.insert(() -> qos.saveAndFlush(entity), () -> qosExists(request.name()));
        changed("qos " + request.name());
        return view(entity);
    }

    private static GantryException qosExists(String name) {
        return GantryException.conflict("QOS '" + name + "' already exists");
    }

    @Transactional
    public Qos updateQos(String name, QosRequest request) {
        QosEntity entity = findQos(name);
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (request.name() != null && !request.name().equals(name)) {
            throw GantryException.badRequest("name", "cannot be changed");
        }
        apply(entity, request);
        qos.saveAndFlush(entity);
        changed("qos " + name);
        return view(entity);
    }

    @Transactional
    public void deleteQos(String name) {
        QosEntity entity = findQos(name);
        if (NORMAL.equals(name)) {
            throw GantryException.conflict("QOS normal is every association's default and cannot be deleted");
        }
        List<String> users = new ArrayList<>();
        for (AssociationEntity a : associations.findAll()) {
            if (name.equals(a.defaultQos()) || a.qos().contains(name)) {
                users.add(a.user() == null ? a.account() : a.account() + "/" + a.user());
            }
        }
        if (!users.isEmpty()) {
            throw GantryException.conflict("QOS '" + name + "' is in use by associations " + String.join(", ", users));
        }
        List<String> preemptors = qos.findAll().stream().filter(q -> q.preempt().contains(name)).map(QosEntity::name)
                .toList();
        if (!preemptors.isEmpty()) {
            throw GantryException.conflict("QOS '" + name + "' is in use: QOS " + String.join(", ", preemptors)
                    + " may preempt it");
        }
        if (activeJobs.anyWithQos(name)) {
            throw GantryException.conflict("QOS '" + name + "' is in use by pending or running jobs");
        }
        cluster.listPartitions().stream().filter(p -> name.equals(p.qos())).findFirst().ifPresent(p -> {
            throw GantryException.conflict("QOS '" + name + "' is in use: it is partition " + p.name() + "'s QOS");
        });
        qos.delete(entity);
        qos.flush();
        changed("qos " + name);
    }

    private void apply(QosEntity entity, QosRequest request) {
        List<FieldError> errors = new ArrayList<>();
        if (request.description() != null) {
            entity.setDescription(blankToNull(request.description()));
        }
        if (request.priority() != null) {
            if (request.priority() < 0) {
                errors.add(new FieldError("priority", "must be 0 or more, was " + request.priority()));
            } else {
                entity.setPriority(request.priority());
            }
        }
        if (request.maxWallSeconds() != null) {
            long v = request.maxWallSeconds();
            if (v < -1 || v == 0) {
                errors.add(new FieldError("maxWallSeconds", "must be positive, or -1 to clear it; was " + v));
            } else {
                entity.setMaxWallSeconds(v == -1 ? null : v);
            }
        }
        if (request.maxJobsPerUser() != null) {
            entity.setMaxJobsPerUser(limit("maxJobsPerUser", request.maxJobsPerUser(), errors));
        }
        if (request.maxSubmitJobsPerUser() != null) {
            entity.setMaxSubmitJobsPerUser(limit("maxSubmitJobsPerUser", request.maxSubmitJobsPerUser(), errors));
        }
        if (request.maxTresPerUser() != null) {
            tres("maxTresPerUser", request.maxTresPerUser(), errors, entity::setMaxTresPerUser);
        }
        if (request.maxTresPerJob() != null) {
            tres("maxTresPerJob", request.maxTresPerJob(), errors, entity::setMaxTresPerJob);
        }
        if (request.maxJobsPerAccount() != null) {
            entity.setMaxJobsPerAccount(limit("maxJobsPerAccount", request.maxJobsPerAccount(), errors));
        }
        if (request.maxTresPerAccount() != null) {
            tres("maxTresPerAccount", request.maxTresPerAccount(), errors, entity::setMaxTresPerAccount);
        }
        if (request.minTresPerJob() != null) {
            tres("minTresPerJob", request.minTresPerJob(), errors, entity::setMinTresPerJob);
        }
        if (request.grpTres() != null) {
            tres("grpTres", request.grpTres(), errors, entity::setGrpTres);
        }
        if (request.preempt() != null) {
            List<String> names = qosNames("preempt", request.preempt(), errors);
            if (names.contains(entity.name())) {
                errors.add(new FieldError("preempt", "a QOS cannot preempt itself"));
            }
            entity.setPreempt(names);
        }
        if (request.preemptMode() != null) {
            String mode = request.preemptMode().strip().toUpperCase(java.util.Locale.ROOT);
            if (mode.isEmpty() || mode.equals("CLUSTER")) {
                // Slurm's "cluster": the cluster's default (here the preemptor's QOS's mode, else REQUEUE).
                entity.setPreemptMode(null);
            } else if (!mode.equals("REQUEUE") && !mode.equals("CANCEL") && !mode.equals("SUSPEND")) {
                errors.add(new FieldError("preemptMode", "must be REQUEUE, CANCEL, SUSPEND or CLUSTER, was '"
                        + request.preemptMode() + "'"));
            } else {
                entity.setPreemptMode(mode);
            }
        }
        seconds("graceSeconds", request.graceSeconds(), errors, entity::setGraceSeconds);
        seconds("preemptExemptSeconds", request.preemptExemptSeconds(), errors, entity::setPreemptExemptSeconds);
        if (request.gpuIdleExempt() != null) {
            entity.setGpuIdleExempt(request.gpuIdleExempt());
        }
        if (request.noDecay() != null) {
            entity.setNoDecay(request.noDecay());
        }
        if (request.overPartQos() != null) {
            entity.setOverPartQos(request.overPartQos());
        }
        if (request.usageFactor() != null) {
            double f = request.usageFactor();
            if (!(f >= 0) || Double.isInfinite(f)) {
                errors.add(new FieldError("usageFactor", "must be 0 or more, was " + f));
            } else {
                entity.setUsageFactor(f);
            }
        }
        entity.budget().apply(request.grpTresMins(), request.grpTresRunMins(), request.maxTresMinsPerJob(),
                request.grpWallSeconds(), errors);
        BudgetLimits.rawUsage(request.rawUsage(), errors);
        throwIfAny(errors);
        if (request.rawUsage() != null) {
            fairShare.resetQosUsage(entity.name());
        }
    }

    private QosEntity findQos(String name) {
        return qos.findById(name).orElseThrow(() -> GantryException.notFound("QOS", name));
    }

    // --- shared checks ----------------------------------------------------------------------------

    private List<String> qosNames(String field, List<String> names, List<FieldError> errors) {
        Set<String> known = new HashSet<>();
        qos.findAll().forEach(q -> known.add(q.name()));
        Set<String> result = new LinkedHashSet<>();
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (n == null || !known.contains(n)) {
                errors.add(new FieldError(field + "[" + i + "]", "QOS '" + n + "' does not exist"));
            } else {
                result.add(n);
            }
        }
        return List.copyOf(result);
    }

    private void changed(String what) {
        events.publishEvent(new AccountingChanged(what));
    }
}
