package io.gantry.reservations;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** An advance reservation, like {@code scontrol show reservation}. */
@Schema(name = "Reservation")
record ReservationView(String name, @Schema(description = "Hostlist of its nodes") String nodes, int nodeCount,
        String partition, Instant startTime, Instant endTime, long durationSeconds, List<String> users,
        List<String> accounts, List<String> flags,
        @Schema(description = "INACTIVE (not begun), ACTIVE or ENDED") String state, String createdBy,
        Instant createdAt) {
}
