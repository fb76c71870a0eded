package io.gantry.reservations;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** A reservation to create, or the fields of one to change (absent fields stay as they are). */
@Schema(name = "ReservationRequest", example = """
        {"name":"maint-rack1","nodes":"gpu[001-004]","startTime":"2026-12-24T08:00:00Z","durationSeconds":14400,
         "users":["admin"],"flags":["MAINT","IGNORE_JOBS"]}""")
record ReservationRequest(
        @Schema(description = "Unique name, used by jobs' reservation option") String name,
        @Schema(description = "The nodes, as a hostlist; or give nodeCount and partition") String nodes,
        @Schema(description = "How many nodes of the partition to reserve (chosen free of jobs)") Integer nodeCount,
        String partition,
        @Schema(description = "When it begins; default now") Instant startTime,
        @Schema(description = "When it ends; or give durationSeconds") Instant endTime,
        Long durationSeconds,
        @Schema(description = "Users whose jobs may name it") List<String> users,
        @Schema(description = "Accounts whose jobs may name it") List<String> accounts,
        @Schema(description = "MAINT (maintenance: jobs wait with 'ReqNodeNotAvail, Reserved for maintenance'), "
                + "IGNORE_JOBS (create it even if running jobs may overlap)") List<String> flags) {
}
