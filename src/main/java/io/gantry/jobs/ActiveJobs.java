package io.gantry.jobs;

/**
 * Which accounts, QOS and associations pending or running jobs use, so that accounting does not
 * delete what they are charged to. Part of the jobs feature's API: accounting asks it and never
 * reads the jobs' tables.
 */
public interface ActiveJobs {

    boolean anyInAccount(String account);

    boolean anyOfUserInAccount(String user, String account);

    boolean anyWithQos(String qos);
}
