package io.gantry.jobs;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.springframework.data.jpa.repository.JpaRepository;

interface JobRepository extends JpaRepository<JobEntity, Long> {

    Optional<JobEntity> findByJobIdAndArrayTaskId(long jobId, int arrayTaskId);

    List<JobEntity> findByJobIdOrderByArrayTaskId(long jobId);

    List<JobEntity> findByStateIn(Collection<JobState> states);

    boolean existsByJobId(long jobId);

    List<JobEntity> findByJobIdIn(Collection<Long> jobIds);

    List<JobEntity> findByBatchHostAndStateIn(String batchHost, Collection<JobState> states);
}
