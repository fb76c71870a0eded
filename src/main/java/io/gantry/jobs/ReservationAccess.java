package io.gantry.jobs;

import java.util.Optional;

/**
 * Whether a job may name an advance reservation: implemented by the reservations feature, asked at
 * submission. An empty answer allows it; otherwise the reason it may not, for the 400.
 */
public interface ReservationAccess {

    Optional<String> refusal(String reservation, String user, String account);
}
