package io.gantry.jobs;

/** Who holds a pending job: a user hold any owner may release, an admin hold only an operator may. */
public enum Hold {
    NONE, USER, ADMIN
}
