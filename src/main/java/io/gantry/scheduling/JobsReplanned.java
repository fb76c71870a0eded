package io.gantry.scheduling;

import io.gantry.jobs.SchedulerJobs.Waiting;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Published with the scheduler's write-back of pending jobs' reasons and expected starts: the jobs
 * (display ids, {@code 42} or {@code 42_7}) whose reason changed, or whose expected start appeared,
 * went away or moved by at least {@link #REPLAN_NOTICE} and a tenth of the wait live
 * views were last told of ({@link #noticeable}). Live views re-read those jobs instead
 * of polling them.
 */
public record JobsReplanned(List<String> jobIds) {

    /**
     * How far a pending job's expected start must move at least, from what live views were last
     * told, to be announced ({@link JobsReplanned}); a change of reason, or an expected start
     * appearing or going away, always is. Estimates drift by seconds from pass to pass as jobs run:
     * announcing each drift would send every pending job's event every pass.
     */
    static final Duration REPLAN_NOTICE = Duration.ofSeconds(60);
    /**
     * And by at least this share of the wait live views were told of: a job ending early moves
     * every later estimate by minutes, which matters to a job expected within the hour, not to the
     * tens of thousands expected days away (they hear of it once the moves add up to a tenth).
     */
    static final int REPLAN_NOTICE_SHARE = 10;

    /**
     * Whether going from {@code before} to {@code after} at {@code now} is worth telling live views:
     * a new reason, an expected start appearing or going away, or one moving by
     * {@link #REPLAN_NOTICE} and by {@link #REPLAN_NOTICE_SHARE a tenth} of the wait it was told.
     */
    static boolean noticeable(Waiting before, Waiting after, Instant now) {
        if (!Objects.equals(before.reason(), after.reason())) {
            return true;
        }
        Instant was = before.expectedStart();
        Instant is = after.expectedStart();
        if (was == null || is == null) {
            return was != is;
        }
        Duration wait = Duration.between(now, was);
        Duration tolerance = wait.dividedBy(REPLAN_NOTICE_SHARE).compareTo(REPLAN_NOTICE) > 0
                ? wait.dividedBy(REPLAN_NOTICE_SHARE) : REPLAN_NOTICE;
        return Duration.between(was, is).abs().compareTo(tolerance) >= 0;
    }
}
