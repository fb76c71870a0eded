package io.gantry.accounting;

/**
 * Which accounts, QOS and associations pending or running jobs use, so that accounting does not
 * delete what they are charged to. The jobs feature implements it; accounting never reads its tables.
 */
public interface ActiveJobs {

    boolean anyInAccount(String account);

    boolean anyOfUserInAccount(String user, String account);

    boolean anyWithQos(String qos);
}
