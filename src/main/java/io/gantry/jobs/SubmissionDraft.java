package io.gantry.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.gantry.api.GantryException.FieldError;
import io.gantry.cluster.ClusterLayout;
import io.gantry.security.CurrentUser;

/**
 * One submission while {@link SubmissionResolver} resolves it: what was given (the JSON, the script's
 * directives, who submits, the cluster's layout and the time), each value as the steps settle it,
 * and every mistake found so far. The JSON wins over a directive field by field ({@link #first}).
 * It answers {@link JobRequest}, so "could this job ever run" asks the engine with the very request
 * the scheduler will plan ({@link EngineRequests}).
 */
final class SubmissionDraft implements JobRequest {

    final JobSubmission json;
    final SbatchOptions directives;
    final CurrentUser caller;
    final ClusterLayout layout;
    final Instant now;
    final List<FieldError> errors;
    final List<String> warnings;

    String name;
    List<String> partitions = List.of();
    String account;
    String qos;
    /** The account and QOS the job is charged to, with their limits; null when they are wrong. */
    Charge charge;
    int minNodes;
    Integer maxNodes;
    Integer ntasksPerNode;
    int tasks;
    int gpus;
    int gpusPerNode;
    String gpuType;
    int cpusPerTask;
    long memoryMb;
    String constraints;
    String exclusiveMode;
    boolean exclusive;
    long timeLimit;
    Long timeMin;
    Integer shards;
    Integer segment;
    String array;
    List<Integer> taskIds = List.of();
    Integer arrayMaxRunning;
    String dependency;
    boolean held;
    int nice;
    Map<String, String> environment;
    String reservation;
    Instant beginTime;
    String nodelistField;
    String excludeField;
    String nodelist;
    String exclude;
    String workdir;
    String stdout;
    String stderr;
    String comment;
    String umask;
    String signal;
    String switches;
    JobSwitches switchLimit;
    io.gantry.noded.protocol.ContainerSpec container;
    Long simulatedRun;
    /** The options the job keeps as asked, as the steps settle them. */
    final JobOptions.Builder options = JobOptions.builder();

    SubmissionDraft(JobSubmission json, SbatchOptions directives, List<FieldError> scriptErrors, CurrentUser caller,
            ClusterLayout layout, Instant now) {
        this.json = json;
        this.directives = directives;
        this.errors = new ArrayList<>(scriptErrors);
        this.warnings = new ArrayList<>(directives.warnings());
        this.caller = caller;
        this.layout = layout;
        this.now = now;
    }

    void error(String field, String message) {
        errors.add(new FieldError(field, message));
    }

    /** The first value given: the JSON's, else the directive's, else the default. */
    @SafeVarargs
    static <T> T first(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** Where a value came from, for errors: the JSON field, else the script line of its directive. */
    String fieldOf(String field, Object given) {
        Integer line = directives.lineOf(field);
        return given == null && line != null ? "script:" + line : field;
    }

    /** Where a value came from: the JSON field, else the script line of its directive {@code --option}. */
    String where(String field, String option, Object given) {
        Integer line = directives.lineOf(option);
        return given == null && line != null ? "script:" + line : field;
    }

    /** The GPUs the job asks for in all: {@code gpus}, else per node times its node count. */
    long gpuTotal() {
        return gpus > 0 ? gpus : (long) gpusPerNode * Math.max(minNodes, 1);
    }

    /** The spec the store keeps, once every step passed; {@code defaultMemoryMb} as shown while it waits. */
    JobSpec spec(Long defaultMemoryMb) {
        return new JobSpec(name, json.script(), partitions, account, qos, minNodes, maxNodes, tasks,
                cpusPerTask, ntasksPerNode, memoryMb, gpus, gpusPerNode, gpuType, timeLimit, constraints, exclusive,
                dependency, array, arrayMaxRunning, taskIds, held ? Hold.USER : Hold.NONE, nice,
                workdir, environment, stdout, stderr, first(json.requeue(), directives.requeue(), true), reservation,
                beginTime, nodelist, exclude, comment, simulatedRun, json.simulatedExitCode(), umask, signal,
                switches, timeMin, segment, defaultMemoryMb, exclusiveMode, shards, container, options.build());
    }

    // --- JobRequest: the job as the engine is asked about it ----------------------------------------

    @Override
    public List<String> partitions() {
        return partitions;
    }

    @Override
    public String account() {
        return account;
    }

    @Override
    public String qos() {
        return qos;
    }

    @Override
    public long timeLimitSeconds() {
        return timeLimit;
    }

    @Override
    public int minNodes() {
        return minNodes;
    }

    @Override
    public Integer maxNodes() {
        return maxNodes;
    }

    @Override
    public int tasks() {
        return tasks;
    }

    @Override
    public int cpusPerTask() {
        return cpusPerTask;
    }

    @Override
    public long memoryMb() {
        return memoryMb;
    }

    @Override
    public int gpus() {
        return gpus;
    }

    @Override
    public int gpusPerNode() {
        return gpusPerNode;
    }

    @Override
    public String gpuType() {
        return gpuType;
    }

    @Override
    public Integer shards() {
        return shards;
    }

    @Override
    public String constraints() {
        return constraints;
    }

    @Override
    public boolean exclusive() {
        return exclusive;
    }

    @Override
    public String exclusiveMode() {
        return exclusiveMode;
    }

    @Override
    public String nodelist() {
        return nodelist;
    }

    @Override
    public String exclude() {
        return exclude;
    }

    @Override
    public String switches() {
        return switches;
    }

    @Override
    public Long timeMinSeconds() {
        return timeMin;
    }

    @Override
    public Integer segment() {
        return segment;
    }
}
