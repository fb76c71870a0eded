package io.gantry.jobs;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

interface JobRepository extends JpaRepository<JobEntity, Long> {

    Optional<JobEntity> findByJobIdAndArrayTaskId(long jobId, int arrayTaskId);

    List<JobEntity> findByJobIdOrderByArrayTaskId(long jobId);

    List<JobEntity> findByStateIn(Collection<JobState> states);

    boolean existsByJobId(long jobId);

    List<JobEntity> findByJobIdIn(Collection<Long> jobIds);

    /** nextval works on PostgreSQL and on H2 in PostgreSQL mode. */
    @Query(value = "SELECT nextval('job_ids')", nativeQuery = true)
    long nextJobId();
}
