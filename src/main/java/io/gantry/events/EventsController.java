package io.gantry.events;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

@Tag(name = "events")
@RestController
@RequestMapping("/api/v1")
class EventsController {

    private final LiveEvents events;

    EventsController(LiveEvents events) {
        this.events = events;
    }

    @Operation(operationId = "streamEvents", summary = "Live job and node changes (server-sent events); "
            + "send Last-Event-ID to resume", description = "Each event is named job or node; its data is "
            + "{kind, id, change, time}: id is a job's display id (42, 42_7) or a node's name. A job's change is "
            + "SUBMITTED, UPDATED, HELD, RELEASED, REQUEUED, CANCELLED, RUNNING, its end state (COMPLETED, FAILED, "
            + "TIMEOUT, ...), 'STEP 42.0 COMPLETED' for a step's start or end, or REPLANNED: the scheduler changed "
            + "the pending job's reason, or its expected start appeared, went away, or moved from what the stream "
            + "last said of it by at least 60 s and a tenth of the wait it said (smaller moves add up until they "
            + "are that large; priorities changing by age are not announced; more than 50 tasks of one array moved by "
            + "one pass are one event naming the array, 42, with change 'REPLANNED TASKS'). A node's change is its new state. "
            + "An event named reset says events "
            + "were missed: reload. With gantry.jobs.private-jobs a USER's stream carries "
            + "only node events and the events of their own jobs; OPERATORs and ADMINs get every event.")
    // The body is a stream of text/event-stream lines, not an SseEmitter object (springdoc would
    // otherwise publish the server-side SseEmitter class as a schema).
    @ApiResponse(responseCode = "200", description = "A never-ending stream of server-sent events",
            content = @Content(mediaType = MediaType.TEXT_EVENT_STREAM_VALUE, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "429", description = "The caller already holds gantry.events.max-streams-per-user "
            + "streams, or the controller serves gantry.events.max-streams; the open streams are left running",
            content = @Content(mediaType = "application/problem+json",
                    schema = @Schema(ref = "#/components/schemas/ProblemDetail")))
    @GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    SseEmitter streamEvents(@RequestHeader(name = "Last-Event-ID", required = false) Long lastEventId,
            CurrentUser caller) {
        return events.subscribe(caller, lastEventId);
    }
}
