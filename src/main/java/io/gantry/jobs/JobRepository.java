package io.gantry.jobs;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;

import jakarta.persistence.LockModeType;

interface JobRepository extends JpaRepository<JobEntity, Long> {

    Optional<JobEntity> findByJobIdAndArrayTaskId(long jobId, int arrayTaskId);

    List<JobEntity> findByJobIdOrderByArrayTaskId(long jobId);

    /**
     * A job or every task of an array, locked for this transaction (SELECT ... FOR UPDATE): what a request
     * changes, so that the scheduler's and the agents' changes to the same rows wait for it instead of making
     * it fail on a version a big array's churn has moved on.
     */
    @Lock(LockModeType.PESSIMISTIC_WRITE)
    List<JobEntity> findForUpdateByJobIdOrderByArrayTaskId(long jobId);

    @Lock(LockModeType.PESSIMISTIC_WRITE)
    Optional<JobEntity> findForUpdateByJobIdAndArrayTaskId(long jobId, int arrayTaskId);

    /** A job, or an array's first task: what GET /jobs/{id} shows, without reading every task of a big array. */
    Optional<JobEntity> findFirstByJobIdOrderByArrayTaskId(long jobId);

    List<JobEntity> findByStateIn(Collection<JobState> states);

    boolean existsByJobId(long jobId);

    boolean existsByJobIdAndUser(long jobId, String user);

    List<JobEntity> findByJobIdIn(Collection<Long> jobIds);

    boolean existsByAccountAndStateIn(String account, Collection<JobState> states);

    boolean existsByUserAndAccountAndStateIn(String user, String account, Collection<JobState> states);

    boolean existsByQosAndStateIn(String qos, Collection<JobState> states);

    long countByUserAndQosAndStateIn(String user, String qos, Collection<JobState> states);

    long countByUserAndAccountAndStateIn(String user, String account, Collection<JobState> states);

    long countByAccountInAndStateIn(Collection<String> accounts, Collection<JobState> states);

}
