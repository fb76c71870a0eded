package io.gantry.jobs;

/**
 * Which account and QOS a submission is charged to, and under which limits. Accounting answers (it
 * owns accounts, associations and QOS); jobs asks at submit and update time through this interface,
 * so that the jobs feature does not depend on accounting, which reads jobs through their API.
 */
public interface Charges {

    /**
     * The account and QOS a job of {@code user} is charged to: {@code account} or the user's default
     * account, {@code qos} or the association's default QOS. Every refusal is a 400 naming
     * {@code account} or {@code qos}.
     */
    Charge charge(String user, String account, String qos);

    /** QOS {@code name}'s limits as the engine takes them (a partition's QOS, checked at submission); null when none. */
    io.gantry.engine.Qos engineQos(String name);
}
