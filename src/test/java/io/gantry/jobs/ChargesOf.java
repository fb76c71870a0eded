package io.gantry.jobs;

/** Charges for submission tests: each charge from {@code charge}, and no QOS a partition could name. */
@FunctionalInterface
interface ChargesOf extends Charges {

    @Override
    default io.gantry.engine.Qos engineQos(String name) {
        return null;
    }
}
