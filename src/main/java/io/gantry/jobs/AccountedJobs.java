package io.gantry.jobs;

import java.util.EnumSet;
import java.util.Set;

import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * Which accounts, QOS and associations unfinished jobs are charged to, for accounting's deletes and
 * for the submit-time limits. Each row counts, so every task of an array counts as one job.
 */
@Component
class AccountedJobs implements ActiveJobs {

    static final Set<JobState> UNFINISHED = EnumSet.of(JobState.PENDING, JobState.RUNNING, JobState.COMPLETING,
            JobState.SUSPENDED);

    private final JobRepository jobs;

    AccountedJobs(JobRepository jobs) {
        this.jobs = jobs;
    }

    @Override
    @Transactional(readOnly = true)
    public boolean anyInAccount(String account) {
        return jobs.existsByAccountAndStateIn(account, UNFINISHED);
    }

    @Override
    @Transactional(readOnly = true)
    public boolean anyOfUserInAccount(String user, String account) {
        return jobs.existsByUserAndAccountAndStateIn(user, account, UNFINISHED);
    }

    @Override
    @Transactional(readOnly = true)
    public boolean anyWithQos(String qos) {
        return jobs.existsByQosAndStateIn(qos, UNFINISHED);
    }

    long ofUserInQos(String user, String qos) {
        return jobs.countByUserAndQosAndStateIn(user, qos, UNFINISHED);
    }

    long ofUserInAccount(String user, String account) {
        return jobs.countByUserAndAccountAndStateIn(user, account, UNFINISHED);
    }

    /** Unfinished jobs charged to any of {@code accounts}. */
    long inAccounts(java.util.Collection<String> accounts) {
        return accounts.isEmpty() ? 0 : jobs.countByAccountInAndStateIn(accounts, UNFINISHED);
    }
}
