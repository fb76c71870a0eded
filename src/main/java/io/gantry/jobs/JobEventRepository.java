package io.gantry.jobs;

import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;

interface JobEventRepository extends JpaRepository<JobEventEntity, Long> {

    List<JobEventEntity> findByJobRowOrderById(long jobRow);
}
