package io.gantry.reservations;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.InputBounds;
import io.gantry.api.InputText;
import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.ProblemType;
import io.gantry.api.UniqueKey;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.AdvanceReservation;
import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.ReservationAccess;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.scheduling.ReservationSource;
import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;
import io.gantry.security.CurrentUser;
import io.gantry.security.UserService;

/**
 * Advance reservations: created by ADMINs on named nodes or on a count of a partition's nodes,
 * checked against running jobs (unless IGNORE_JOBS) and against each other, and handed to the
 * engine, which keeps other jobs off the nodes during the window.
 */
@Service
class ReservationService implements ReservationAccess, ReservationSource {

    /** The most names a reservation's node list may expand to; more is refused before expanding. */
    private static final int MAX_HOSTS = 65_536;


    static final Set<String> FLAGS = Set.of("MAINT", "IGNORE_JOBS");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private final ReservationRepository reservations;
    private final ClusterService cluster;
    private final SchedulerJobs jobs;
    private final UserService users;
    private final Clock clock;
    private final Audit audit;
    private final org.springframework.jdbc.core.JdbcTemplate jdbc;

    ReservationService(ReservationRepository reservations, ClusterService cluster, SchedulerJobs jobs,
            UserService users, Clock clock, Audit audit, org.springframework.jdbc.core.JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.audit = audit;
        this.reservations = reservations;
        this.cluster = cluster;
        this.jobs = jobs;
        this.users = users;
        this.clock = clock;
    }

    @Transactional(readOnly = true)
    public List<ReservationView> list() {
        return reservations.findAll().stream().sorted(Comparator.comparing(ReservationEntity::startTime)
                .thenComparing(ReservationEntity::name)).map(this::view).toList();
    }

    @Transactional(readOnly = true)
    public ReservationView get(String name) {
        return view(find(name));
    }

    @Transactional
    public ReservationView create(ReservationRequest request, CurrentUser caller) {
        String actor = caller.username();
        if (request == null) {
            throw GantryException.badRequest("body", "is required");
        }
        takeTurn();
        List<FieldError> errors = new ArrayList<>();
        if (request.name() == null || !NAME.matcher(request.name()).matches()) {
            errors.add(new FieldError("name", "is required: 1-64 letters, digits, '_', '.' or '-'"));
        } else if (reservations.existsById(request.name())) {
            throw reservationExists(request.name());
        }
        ReservationEntity entity = new ReservationEntity(request.name(), actor, clock.instant());
        apply(entity, request, null, errors);
        // Of two creates that both passed the check, the primary key lets one insert.
        ReservationView created = view(UniqueKey.insert(() -> reservations.saveAndFlush(entity),
                () -> reservationExists(request.name())));
        audit.record(actor(caller), AuditAction.CREATE, AuditEntity.RESERVATION, created.name(), null, created);
        return created;
    }

    private static GantryException reservationExists(String name) {
        return GantryException.conflict("Reservation '" + name + "' already exists");
    }

    @Transactional
    public ReservationView update(String name, ReservationRequest change, CurrentUser caller) {
        takeTurn();
        ReservationEntity entity = find(name);
        ReservationView before = view(entity);
        if (change == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (change.name() != null && !change.name().equals(name)) {
            throw GantryException.badRequest("name", "cannot be changed; delete and create the reservation instead");
        }
        boolean newNodes = change.nodes() != null || change.nodeCount() != null;
        ReservationRequest merged = new ReservationRequest(name,
                newNodes ? change.nodes() : entity.nodes(), newNodes ? change.nodeCount() : null,
                change.partition() != null ? change.partition() : entity.partition(),
                change.startTime() != null ? change.startTime() : entity.startTime(),
                change.endTime() != null || change.durationSeconds() != null ? change.endTime() : entity.endTime(),
                change.durationSeconds(),
                change.users() != null ? change.users() : entity.users(),
                change.accounts() != null ? change.accounts() : entity.accounts(),
                change.flags() != null ? change.flags() : entity.flags());
        apply(entity, merged, name, new ArrayList<>());
        ReservationView after = view(reservations.saveAndFlush(entity));
        audit.record(actor(caller), AuditAction.UPDATE, AuditEntity.RESERVATION, name, before, after);
        return after;
    }

    @Transactional
    public void delete(String name, CurrentUser caller) {
        ReservationEntity entity = find(name);
        ReservationView before = view(entity);
        reservations.delete(entity);
        reservations.flush();
        audit.record(actor(caller), AuditAction.DELETE, AuditEntity.RESERVATION, name, before, null);
    }

    /**
     * Waits for every other reservation write, on any controller, to commit or roll back: what this
     * one reads next (the name, the other reservations' nodes and windows) is then final until it
     * commits, so of two writes for the same nodes and time the second sees the first and is refused.
     */
    private void takeTurn() {
        jdbc.queryForList("SELECT id FROM reservation_writes WHERE id = 1 FOR UPDATE", Integer.class);
    }

    private static Actor actor(CurrentUser caller) {
        return Actor.staff(caller.username(), caller.isAdmin());
    }

    /** Reservations not yet over, as the engine takes them. */
    @Override
    @Transactional(readOnly = true)
    public List<AdvanceReservation> current() {
        return reservations.findByEndTimeAfterOrderByStartTime(clock.instant()).stream()
                .map(r -> new AdvanceReservation(r.name(), Set.copyOf(Hostlist.parse(r.nodes()).hosts()),
                        r.startTime().getEpochSecond(), r.endTime().getEpochSecond(), r.flags().contains("MAINT")))
                .toList();
    }

    @Override
    @Transactional(readOnly = true)
    public Optional<String> refusal(String reservation, String user, String account) {
        Optional<ReservationEntity> found = reservations.findById(reservation);
        if (found.isEmpty()) {
            return Optional.of("unknown reservation '" + reservation + "'");
        }
        ReservationEntity r = found.get();
        if (!r.endTime().isAfter(clock.instant())) {
            return Optional.of("reservation '" + reservation + "' ended at " + r.endTime());
        }
        if (r.users().contains(user) || (account != null && r.accounts().contains(account))) {
            return Optional.empty();
        }
        return Optional.of("user '" + user + "' (account '" + account + "') may not use reservation '" + reservation
                + "'; it is for users " + r.users() + " and accounts " + r.accounts());
    }

    private void apply(ReservationEntity entity, ReservationRequest request, String replacing, List<FieldError> errors) {
        Instant now = clock.instant();
        Instant start = request.startTime() != null ? request.startTime() : now;
        Instant end = null;
        if (request.endTime() != null && request.durationSeconds() != null) {
            errors.add(new FieldError("endTime", "give endTime or durationSeconds, not both"));
        } else if (request.endTime() != null) {
            end = request.endTime();
        } else if (request.durationSeconds() != null) {
            if (request.durationSeconds() <= 0 || request.durationSeconds() > InputBounds.MAX_DURATION.toSeconds()) {
                errors.add(new FieldError("durationSeconds", "must be 1 to " + InputBounds.MAX_DURATION.toSeconds()
                        + " (100 years), was " + request.durationSeconds()));
            } else if (InputBounds.inRange(start)) {
                end = start.plusSeconds(request.durationSeconds());
            }
        } else {
            errors.add(new FieldError("endTime", "is required (or durationSeconds)"));
        }
        if (!InputBounds.inRange(start)) {
            errors.add(new FieldError("startTime", InputBounds.rangeMessage(start)));
        } else if (end != null && !InputBounds.inRange(end)) {
            errors.add(new FieldError(request.endTime() != null ? "endTime" : "durationSeconds",
                    "ends the reservation at " + end + ": " + InputBounds.rangeMessage(end)));
        } else if (end != null && !end.isAfter(start)) {
            errors.add(new FieldError("endTime", "must be after startTime (" + start + ")"));
        } else if (end != null && !end.isAfter(now)) {
            errors.add(new FieldError("endTime", "is in the past"));
        }
        List<String> userList = clean(request.users());
        List<String> accountList = clean(request.accounts());
        if (userList.isEmpty() && accountList.isEmpty()) {
            errors.add(new FieldError("users", "give users or accounts (or both): who may run in the reservation"));
        }
        for (int i = 0; i < userList.size(); i++) {
            if (users.find(userList.get(i)).isEmpty()) {
                errors.add(new FieldError("users[" + i + "]", "no user '" + userList.get(i) + "'"));
            }
        }
        List<String> flagList = new ArrayList<>();
        for (String f : clean(request.flags())) {
            String flag = f.toUpperCase(Locale.ROOT);
            if (!FLAGS.contains(flag)) {
                errors.add(new FieldError("flags", "'" + f + "' is not one of " + FLAGS.stream().sorted().toList()));
            } else {
                flagList.add(flag);
            }
        }
        ClusterLayout layout = cluster.layout();
        String partition = request.partition();
        if (partition != null && !layout.partitions().containsKey(partition)) {
            errors.add(new FieldError("partition", "unknown partition '" + partition + "'"));
        }
        List<String> explicit = null;
        boolean hasNodes = request.nodes() != null && !request.nodes().isBlank();
        if (hasNodes == (request.nodeCount() != null)) {
            errors.add(new FieldError("nodes", "give nodes (a hostlist) or nodeCount with partition, one of them"));
        } else if (hasNodes) {
            try {
                explicit = Hostlist.parse(request.nodes(), MAX_HOSTS).hosts();
                List<String> unknown = explicit.stream().filter(n -> !layout.nodes().containsKey(n)).distinct()
                        .toList();
                if (!unknown.isEmpty()) {
                    errors.add(new FieldError("nodes", "unknown nodes "
                            + InputText.someOf(unknown.subList(0, Math.min(5, unknown.size())), unknown.size())));
                }
            } catch (HostlistException e) {
                errors.add(new FieldError("nodes", e.getMessage()));
            }
        } else if (request.nodeCount() < 1) {
            errors.add(new FieldError("nodeCount", "must be at least 1"));
        } else if (partition == null) {
            errors.add(new FieldError("partition", "is required with nodeCount"));
        } else if (layout.partitions().containsKey(partition)
                && request.nodeCount() > layout.partitions().get(partition).nodes().size()) {
            errors.add(new FieldError("nodeCount", "partition " + partition + " has only "
                    + layout.partitions().get(partition).nodes().size() + " nodes"));
        }
        if (!errors.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, "The reservation is invalid", errors);
        }
        boolean ignoreJobs = flagList.contains("IGNORE_JOBS");
        java.util.Map<String, String> taken = takenByOthers(replacing, start, end);
        Set<String> busy = ignoreJobs ? Set.of() : busyAfter(start);
        List<String> chosen;
        if (explicit != null) {
            for (String node : explicit) {
                if (taken.containsKey(node)) {
                    throw GantryException.conflict("Node " + node + " is in reservation '" + taken.get(node)
                            + "' during " + start + " - " + end);
                }
                if (busy.contains(node)) {
                    throw GantryException.conflict("Node " + node + " runs jobs that may last past " + start
                            + "; wait for them, or set flag IGNORE_JOBS");
                }
            }
            chosen = explicit;
        } else {
            chosen = layout.partitions().get(partition).nodes().stream()
                    .filter(n -> !taken.containsKey(n) && !busy.contains(n))
                    .sorted(Hostlist.HOST_ORDER).limit(request.nodeCount()).toList();
            if (chosen.size() < request.nodeCount()) {
                throw GantryException.conflict("Only " + chosen.size() + " of partition " + partition
                        + "'s nodes are free of jobs and other reservations from " + start + "; asked for "
                        + request.nodeCount());
            }
        }
        entity.set(Hostlist.of(chosen).toString(), partition, start, end, userList, accountList, flagList);
    }

    /** Nodes of other reservations whose window overlaps [start, end), each with the reservation's name. */
    private java.util.Map<String, String> takenByOthers(String except, Instant start, Instant end) {
        java.util.Map<String, String> taken = new java.util.HashMap<>();
        for (ReservationEntity r : reservations.findByEndTimeAfterOrderByStartTime(start)) {
            if (!r.name().equals(except) && r.startTime().isBefore(end)) {
                Hostlist.parse(r.nodes()).hosts().forEach(n -> taken.putIfAbsent(n, r.name()));
            }
        }
        return taken;
    }

    /** Nodes with a running job whose time limit reaches past {@code start}. */
    private Set<String> busyAfter(Instant start) {
        Set<String> busy = new HashSet<>();
        for (ActiveJob job : jobs.activeJobs()) {
            if (job.startTime() != null && job.state().isActive()
                    && job.startTime().plusSeconds(job.timeLimitSeconds()).isAfter(start)) {
                job.allocation().stream().map(JobAllocation::node).forEach(busy::add);
            }
        }
        return busy;
    }

    private ReservationEntity find(String name) {
        return reservations.findById(name).orElseThrow(() -> GantryException.notFound("Reservation", name));
    }

    private ReservationView view(ReservationEntity r) {
        Instant now = clock.instant();
        String state = r.endTime().isAfter(now) ? (r.startTime().isAfter(now) ? "INACTIVE" : "ACTIVE") : "ENDED";
        return new ReservationView(r.name(), r.nodes(), Hostlist.parse(r.nodes()).size(), r.partition(), r.startTime(),
                r.endTime(), r.endTime().getEpochSecond() - r.startTime().getEpochSecond(), r.users(), r.accounts(),
                r.flags(), state, r.createdBy(), r.createdAt());
    }

    private static List<String> clean(List<String> list) {
        if (list == null) {
            return List.of();
        }
        Set<String> out = new LinkedHashSet<>();
        for (String s : list) {
            if (s != null && !s.isBlank()) {
                out.add(s.strip());
            }
        }
        return List.copyOf(out);
    }
}
