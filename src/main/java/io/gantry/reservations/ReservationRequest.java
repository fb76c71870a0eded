package io.gantry.reservations;

import java.time.Instant;
import java.util.List;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import io.swagger.v3.oas.annotations.media.Schema;

/** A reservation to create, or the fields of one to change (absent fields stay as they are). */
@Schema(name = "ReservationRequest", example = """
        {"name":"maint-rack1","nodes":"gpu[001-004]","startTime":"2026-12-24T08:00:00Z","durationSeconds":14400,
         "users":["admin"],"flags":["MAINT","IGNORE_JOBS"]}""")
record ReservationRequest(
        @Schema(description = "Unique name, used by jobs' reservation option") @Size(max = 64) String name,
        @Schema(description = "The nodes, as a hostlist; or give nodeCount and partition")
        @Size(max = 65_536) String nodes,
        @Schema(description = "How many nodes of the partition to reserve (chosen free of jobs)") Integer nodeCount,
        @Size(max = 64) String partition,
        @Schema(description = "When it begins; default now; 1970 to 9999") Instant startTime,
        @Schema(description = "When it ends; or give durationSeconds; 1970 to 9999") Instant endTime,
        @Schema(description = "At most 100 years", maximum = "3153600000") Long durationSeconds,
        @Schema(description = "Users whose jobs may name it") @Size(max = 60) List<@NotNull @Size(max = 64) String> users,
        @Schema(description = "Accounts whose jobs may name it")
        @Size(max = 60) List<@NotNull @Size(max = 64) String> accounts,
        @Schema(description = "MAINT (maintenance: jobs wait with 'ReqNodeNotAvail, Reserved for maintenance'), "
                + "IGNORE_JOBS (create it even if running jobs may overlap)")
        @Size(max = 8) List<@NotNull @Size(max = 32) String> flags) {
}
