package io.gantry.jobs;

/**
 * The longest text each submission field may hold, in characters: the size of the store's column
 * (see db/migration), or for hostlist expressions a cap on what is read before expanding. Shown in the
 * OpenAPI document through {@code @Size} on {@link JobSubmission} and enforced again by
 * {@link SubmissionResolver} on the values {@code #SBATCH} directives give.
 */
final class SubmissionLimits {

    static final int NAME = 256;
    static final int PATH = 4096;
    static final int COMMENT = 4096;
    static final int ACCOUNT = 64;
    static final int QOS = 64;
    static final int PARTITION = 1024;
    static final int CONSTRAINTS = 1024;
    static final int GPU_TYPE = 64;
    static final int RESERVATION = 64;
    static final int DEPENDENCY = 4000;
    static final int ARRAY = 4000;
    /** A nodelist or exclude expression as typed; its compressed form must also fit 4,000 characters. */
    static final int HOSTLIST_EXPRESSION = 65_536;
    static final int UMASK = 8;
    static final int SIGNAL = 64;
    /** {@code count@max-time}; stored as {@code count@seconds} in 32 characters. */
    static final int SWITCHES = 32;

    private SubmissionLimits() {
    }
}
