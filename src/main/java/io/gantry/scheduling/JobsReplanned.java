package io.gantry.scheduling;

import java.util.List;

/**
 * Published with the scheduler's write-back of pending jobs' reasons and expected starts: the jobs
 * (display ids, {@code 42} or {@code 42_7}) whose reason changed, or whose expected start appeared,
 * went away or moved by at least {@link SchedulingCycle#REPLAN_NOTICE} and a tenth of the wait live
 * views were last told of ({@link SchedulingCycle#noticeable}). Live views re-read those jobs instead
 * of polling them.
 */
public record JobsReplanned(List<String> jobIds) {
}
