package io.gantry.scheduling;

import java.util.List;

import io.gantry.engine.AdvanceReservation;

/** The advance reservations not yet over, as each scheduling cycle hands them to the engine. */
@FunctionalInterface
public interface ReservationSource {

    List<AdvanceReservation> current();
}
