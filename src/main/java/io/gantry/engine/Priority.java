package io.gantry.engine;

/**
 * A job's priority and the factors it came from (each in [0,1], before weighting), as sprio shows.
 */
public record Priority(long value, double age, double fairShare, double jobSize, double partition, double qos,
        double shortJob, double expansion, int nice) {
}
