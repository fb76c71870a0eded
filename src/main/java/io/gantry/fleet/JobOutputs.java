package io.gantry.fleet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.noded.protocol.AgentProtocol.OutputChunk;
import io.gantry.noded.protocol.AgentProtocol.OutputProblem;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.cluster.ClusterLayout;
import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.security.CallerStanding;
import io.gantry.security.CurrentUser;
import jakarta.annotation.PreDestroy;

/**
 * A job's output and error files, read from the agent of the node that runs its batch script (see
 * {@link JobOutputRequests}): at once (up to {@value #MAX_ANSWER} bytes from an offset), or followed
 * like {@code tail -f} as server-sent events until the job ends. Only its owner, OPERATORs and ADMINs
 * may read them; a job on a simulated node has none, and says so. A followed file is read with the
 * token it was opened with for as long as that token holds: once it is revoked or expires, or its
 * user is disabled or changed, the stream ends at the next read ({@link #FOLLOW_EVERY}), not when
 * {@link #FOLLOW_TIMEOUT} runs out.
 */
@Service
class JobOutputs {

    /** What one agent answer carries at most. */
    static final int CHUNK = 256 * 1024;
    /** What one plain answer carries at most; the client asks again from where it ended. */
    static final int MAX_ANSWER = 4 * 1024 * 1024;
    static final Duration FOLLOW_EVERY = Duration.ofSeconds(1);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    static final Duration FOLLOW_TIMEOUT = Duration.ofHours(1);
    static final String SIZE_HEADER = "Gantry-Output-Size";
    static final String NEXT_OFFSET_HEADER = "Gantry-Output-Next-Offset";
    static final String RUNNING_HEADER = "Gantry-Job-Running";
    private static final EnumSet<JobState> MAY_RUN = EnumSet.of(JobState.RUNNING, JobState.COMPLETING,
            JobState.SUSPENDED);

    /** Which file: {@code stream} is what the agent calls it, {@code path} what the API does. */
    enum Stream {
        OUTPUT("stdout", "output"), ERROR("stderr", "error");

        final String agentName;
        final String apiName;

        Stream(String agentName, String apiName) {
            this.agentName = agentName;
            this.apiName = apiName;
        }
    }

    /** One event of a followed file: {@code text} are the bytes from {@code offset} (UTF-8). */
    record OutputEvent(long offset, String text) {
    }

    /** The last event of a followed file: the job ended in {@code state} and everything was sent. */
    record OutputEnd(long size, JobState state) {
    }

    /** Why a followed file cannot be read (the stream ends after it). */
    record OutputNotice(String detail) {
    }

    /**
     * A job whose file may be read: on {@code node}, unless {@code none} says why it has none (it
     * has not started, or ran on a simulated node), which a plain read answers as an error and a
     * followed one as a notice.
     */
    private record Source(String jobId, String node, Stream stream, GantryException none) {
    }

    private final JobService jobs;
    private final ClusterLayout layout;
    private final JobOutputRequests requests;
    private final CallerStanding standing;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gantry-job-output");
        t.setDaemon(true);
        return t;
    });

    JobOutputs(JobService jobs, ClusterLayout layout, JobOutputRequests requests, CallerStanding standing) {
        this.jobs = jobs;
        this.layout = layout;
        this.requests = requests;
        this.standing = standing;
    }

    @PreDestroy
    void stop() {
        timers.shutdownNow();
    }

    /** The job's file from {@code offset}, up to {@value #MAX_ANSWER} bytes, as text/plain. */
    CompletableFuture<ResponseEntity<byte[]>> read(String id, Stream stream, long offset, CurrentUser caller) {
        checkOffset(offset);
        Source source = source(id, stream, caller);
        if (source.none() != null) {
            throw source.none();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        return readInto(source, offset, out).thenApply(last -> ResponseEntity.ok()
                .contentType(new MediaType(MediaType.TEXT_PLAIN, StandardCharsets.UTF_8))
                .header(SIZE_HEADER, Long.toString(last.size()))
                .header(NEXT_OFFSET_HEADER, Long.toString(last.offset() + last.data().length))
                .header(RUNNING_HEADER, Boolean.toString(last.running()))
                .body(out.toByteArray()));
    }

    private CompletableFuture<OutputChunk> readInto(Source source, long offset, ByteArrayOutputStream out) {
        int want = Math.min(CHUNK, MAX_ANSWER - out.size());
        return requests.read(source.node(), source.jobId(), source.stream().agentName, offset, want)
                .thenCompose(chunk -> {
                    if (chunk.problem() != null) {
                        throw new CompletionException(problem(source, chunk));
                    }
                    out.writeBytes(chunk.data());
                    boolean more = chunk.data().length == want && out.size() < MAX_ANSWER
                            && chunk.offset() + chunk.data().length < chunk.size();
                    return more ? readInto(source, chunk.offset() + chunk.data().length, out)
                            : CompletableFuture.completedFuture(chunk);
                });
    }

    /**
     * Follows the job's file from {@code offset}: an {@code output} event for each new piece (its id
     * the offset after it, so Last-Event-ID resumes there), {@code end} once the job ended and all of
     * it was sent, or {@code notice} when it cannot be read, then the stream ends.
     */
    SseEmitter follow(String id, Stream stream, long offset, CurrentUser caller) {
        checkOffset(offset);
        Source source = source(id, stream, caller);
        SseEmitter emitter = new SseEmitter(FOLLOW_TIMEOUT.toMillis());
        if (source.none() != null) {
            // Known before reading: said in the stream, so a page that follows every job is not an error.
            try {
                emitter.send(SseEmitter.event().name("notice").data(new OutputNotice(source.none().getMessage()),
                        MediaType.APPLICATION_JSON));
                emitter.complete();
            } catch (IOException | IllegalStateException e) {
                emitter.completeWithError(e);
            }
            return emitter;
        }
        Follower follower = new Follower(source, caller, standing.ofCurrentCaller(), emitter, offset);
        emitter.onCompletion(follower::close);
        emitter.onTimeout(follower::close);
        emitter.onError(e -> follower.close());
        timers.execute(follower::step);
        return emitter;
    }

    /** One followed file: reads it every {@link #FOLLOW_EVERY}, at once again while more waits. */
    private final class Follower {
        private final Source source;
        private final CurrentUser caller;
        /** Whether the token the stream was opened with would still be accepted. */
        private final BooleanSupplier stillValid;
        private final SseEmitter emitter;
        private long offset;
        private long lastSent = System.nanoTime();
        private volatile boolean closed;

        Follower(Source source, CurrentUser caller, BooleanSupplier stillValid, SseEmitter emitter, long offset) {
            this.source = source;
            this.caller = caller;
            this.stillValid = stillValid;
            this.emitter = emitter;
            this.offset = offset;
        }

        void close() {
            closed = true;
        }

        void step() {
            if (closed || revoked()) {
                return;
            }
            requests.read(source.node(), source.jobId(), source.stream().agentName, offset, CHUNK)
                    .whenCompleteAsync(this::answered, timers);
        }

        private void answered(OutputChunk chunk, Throwable failure) {
            if (closed || revoked()) {
                return;
            }
            try {
                if (failure != null || chunk.problem() != null) {
                    // Not there yet (the launch is on its way, the agent reconnects): wait while the job runs.
                    JobView job = jobs.get(source.jobId(), caller);
                    if (MAY_RUN.contains(job.state()) && (failure != null
                            || chunk.problem() != OutputProblem.MERGED)) {
                        later();
                        return;
                    }
                    String detail = failure != null ? detail(failure) : problem(source, chunk).getMessage();
                    send(SseEmitter.event().name("notice").data(new OutputNotice(detail), MediaType.APPLICATION_JSON));
                    emitter.complete();
                    return;
                }
                byte[] data = chunk.data();
                int whole = data.length == 0 ? 0 : wholeCharacters(data);
                if (whole == 0 && data.length > 0 && !chunk.running()) {
                    whole = data.length; // the file ends in a broken character: send it as it is
                }
                if (whole > 0) {
                    offset = chunk.offset() + whole;
                    send(SseEmitter.event().name("output").id(Long.toString(offset))
                            .data(new OutputEvent(chunk.offset(), new String(data, 0, whole, StandardCharsets.UTF_8)),
                                    MediaType.APPLICATION_JSON));
                }
                if (data.length == CHUNK) {
                    timers.execute(this::step);
                    return;
                }
                if (!chunk.running() && offset >= chunk.size()) {
                    JobView job = jobs.get(source.jobId(), caller);
                    if (!MAY_RUN.contains(job.state())) {
                        send(SseEmitter.event().name("end").data(new OutputEnd(chunk.size(), job.state()),
                                MediaType.APPLICATION_JSON));
                        emitter.complete();
                        return;
                    }
                }
                if (System.nanoTime() - lastSent > KEEP_ALIVE.toNanos()) {
                    send(SseEmitter.event().comment("keep-alive"));
                }
                later();
            } catch (IOException | IllegalStateException e) {
                closed = true; // the client went away
            } catch (RuntimeException e) {
                closed = true;
                emitter.completeWithError(e);
            }
        }

        /**
         * Ends the stream when its token no longer holds (revoked, expired, its user disabled or given
         * other roles): nothing more is read or sent with it. Checked before each read and each answer.
         */
        private boolean revoked() {
            boolean valid;
            try {
                valid = stillValid.getAsBoolean();
            } catch (RuntimeException e) {
                valid = false; // the user's standing cannot be told (the database is away): read nothing more
            }
            if (valid) {
                return false;
            }
            closed = true;
            try {
                emitter.send(SseEmitter.event().name("notice").data(new OutputNotice("The token this stream was opened "
                        + "with no longer holds (revoked or expired, or its user disabled or changed); sign in again"),
                        MediaType.APPLICATION_JSON));
                emitter.complete();
            } catch (IOException | IllegalStateException e) {
                emitter.completeWithError(e); // the client went away meanwhile
            }
            return true;
        }

        private void send(SseEmitter.SseEventBuilder event) throws IOException {
            emitter.send(event);
            lastSent = System.nanoTime();
        }

        private void later() {
            timers.schedule(this::step, FOLLOW_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The job, when the caller may read its files and it ran or runs on a real node. */
    private Source source(String id, Stream stream, CurrentUser caller) {
        JobView job = jobs.get(id, caller);
        if (!caller.mayActFor(job.user())) {
            throw new GantryException(ProblemType.FORBIDDEN, "Job " + job.id() + " is " + job.user()
                    + "'s: only its owner, an OPERATOR or an ADMIN may read its " + stream.apiName);
        }
        if (job.startTime() == null || job.allocation() == null || job.allocation().isEmpty()) {
            return new Source(job.id(), null, stream, GantryException.conflict("Job " + job.id() + " has not started "
                    + "(it is " + job.state() + "): it has no " + stream.apiName + (job.state() == JobState.PENDING
                            ? " yet" : "")));
        }
        String node = job.allocation().get(0).node();
        ClusterLayout.NodeSpec spec = layout.nodes().get(node);
        if (spec != null && spec.simulated()) {
            return new Source(job.id(), node, stream, new GantryException(ProblemType.NOT_FOUND, "Job " + job.id()
                    + " ran on simulated node " + node + ": a simulated job writes no " + stream.apiName));
        }
        return new Source(job.id(), node, stream, null);
    }

    private static GantryException problem(Source source, OutputChunk chunk) {
        String what = "Job " + source.jobId() + "'s " + source.stream().apiName;
        return new GantryException(ProblemType.NOT_FOUND, switch (chunk.problem()) {
            case MERGED -> "Job " + source.jobId() + " named no --error: its errors are in its output";
            case UNKNOWN_JOB -> what + " cannot be found: the agent of " + source.node() + " has no record of the job "
                    + "(it restarted since the job ran)";
            case UNREADABLE -> what + " cannot be read on " + source.node() + ": " + chunk.detail();
        });
    }

    private static String detail(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage();
    }

    private static void checkOffset(long offset) {
        if (offset < 0) {
            throw GantryException.badRequest("offset", "must be 0 or more (a byte offset into the file)");
        }
    }

    /** How many leading bytes of {@code data} are whole UTF-8 characters: a character split at the end waits. */
    static int wholeCharacters(byte[] data) {
        int end = data.length;
        for (int back = 1; back <= Math.min(3, end); back++) {
            int b = data[end - back] & 0xff;
            if ((b & 0xc0) != 0x80) { // a lead byte (or ASCII): is its character complete?
                int length = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
                return length > back ? end - back : end;
            }
        }
        return end;
    }
}
