package io.gantry.reservations;

import java.util.List;

import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code /api/v1/reservations}: anyone signed in reads; ADMINs create, change and delete. */
@RestController
@RequestMapping("/api/v1/reservations")
@Tag(name = "reservations", description = "Advance reservations, like scontrol create/show/update/delete reservation")
class ReservationController {

    private final ReservationService reservations;

    ReservationController(ReservationService reservations) {
        this.reservations = reservations;
    }

    @GetMapping
    @Operation(operationId = "listReservations", summary = "All reservations, like scontrol show reservation")
    List<ReservationView> list() {
        return reservations.list();
    }

    @GetMapping("/{name}")
    @Operation(operationId = "getReservation", summary = "One reservation")
    ReservationView get(@PathVariable String name) {
        return reservations.get(name);
    }

    @PostMapping
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "createReservation", summary = "Create a reservation (ADMIN)")
    ResponseEntity<ReservationView> create(@Valid @RequestBody ReservationRequest request, CurrentUser caller) {
        ReservationView created = reservations.create(request, caller);
        return ResponseEntity.created(ServletUriComponentsBuilder.fromCurrentRequest().path("/{name}")
                .buildAndExpand(created.name()).toUri()).body(created);
    }

    @PatchMapping("/{name}")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "updateReservation", summary = "Change a reservation's window, nodes, users, accounts or flags (ADMIN)")
    ReservationView update(@PathVariable String name, @Valid @RequestBody ReservationRequest change, CurrentUser caller) {
        return reservations.update(name, change, caller);
    }

    @DeleteMapping("/{name}")
    @PreAuthorize("hasRole('ADMIN')")
    @Operation(operationId = "deleteReservation", summary = "Delete a reservation (ADMIN)")
    ResponseEntity<Void> delete(@PathVariable String name, CurrentUser caller) {
        reservations.delete(name, caller);
        return ResponseEntity.status(HttpStatus.NO_CONTENT).build();
    }
}
