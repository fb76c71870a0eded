package io.gantry.reservations;

import java.time.Instant;
import java.util.List;

import org.springframework.data.jpa.repository.JpaRepository;

interface ReservationRepository extends JpaRepository<ReservationEntity, String> {

    List<ReservationEntity> findByEndTimeAfterOrderByStartTime(Instant after);
}
