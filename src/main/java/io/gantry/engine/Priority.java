package io.gantry.engine;

/**
 * A job's priority and the factors it came from (each in [0,1], before weighting), as sprio shows.
 */
public record Priority(long value, double age, double fairShare, double jobSize, double partition, double qos,
        double shortJob, double expansion, int nice, TresFactors tres) {

    public Priority {
        tres = tres == null ? TresFactors.NONE : tres;
    }

    /** As a record prints itself, the TRES factors only when there are some (plans hash as before without them). */
    @Override
    public String toString() {
        return "Priority[value=" + value + ", age=" + age + ", fairShare=" + fairShare + ", jobSize=" + jobSize
                + ", partition=" + partition + ", qos=" + qos + ", shortJob=" + shortJob + ", expansion=" + expansion
                + ", nice=" + nice + (tres.equals(TresFactors.NONE) ? "" : ", tres=" + tres) + "]";
    }

    /** A priority without TRES factors. */
    public Priority(long value, double age, double fairShare, double jobSize, double partition, double qos,
            double shortJob, double expansion, int nice) {
        this(value, age, fairShare, jobSize, partition, qos, shortJob, expansion, nice, null);
    }
}
