package io.gantry.cluster;

import org.springframework.data.jpa.repository.JpaRepository;

interface PartitionRepository extends JpaRepository<PartitionEntity, String> {
}
