package io.gantry.jobs;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code gantry.jobs.*}. {@code privateJobs}: USERs see only their own jobs (Slurm's
 * PrivateData=jobs) in every list, sacct, {@code /priority}, steps and the event stream, and
 * another user's job id answers 404 as an unused one does (a dependency on it too); by default
 * everyone sees the queue. Scripts and environments go only to owners and OPERATORs either way.
 * {@code maxArraySize}: like Slurm's
 * MaxArraySize, task ids must be below it. {@code unlimitedTimeSeconds}: the time limit given to
 * a job when neither it nor its partition sets one, since backfill needs an end to plan with.
 * {@code maxScriptBytes}: like Slurm's max_script_size, the largest batch script (UTF-8 bytes) a
 * submission may carry; a bigger one is a 400 naming {@code script}.
 */
@ConfigurationProperties("gantry.jobs")
public record JobsProperties(
        @DefaultValue("false") boolean privateJobs,
        @DefaultValue("1001") int maxArraySize,
        @DefaultValue("31536000") long unlimitedTimeSeconds,
        @DefaultValue("4MB") DataSize maxScriptBytes) {

    public JobsProperties {
        if (maxScriptBytes.toBytes() < 1 || maxScriptBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("gantry.jobs.max-script-bytes must be 1 byte to 2 GB, was "
                    + maxScriptBytes);
        }
    }
}
