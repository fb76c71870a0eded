package io.gantry.accounting;

import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;

interface QosRepository extends JpaRepository<QosEntity, String> {

    List<QosEntity> findAllByOrderByName();
}
