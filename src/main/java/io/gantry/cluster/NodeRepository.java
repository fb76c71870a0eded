package io.gantry.cluster;

import org.springframework.data.jpa.repository.JpaRepository;

interface NodeRepository extends JpaRepository<NodeEntity, String> {
}
