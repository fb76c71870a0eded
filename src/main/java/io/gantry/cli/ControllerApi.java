package io.gantry.cli;

import tools.jackson.databind.JsonNode;

/**
 * The controller's REST API as the commands use it: JSON in, JSON out. The one seam between the
 * commands and the network, so the output-format tests run the commands against recorded state.
 */
interface ControllerApi {

    /** {@code GET path}; a 404 is {@code null}, any other failure a {@link ApiException}. */
    JsonNode get(String path);

    JsonNode post(String path, Object body);

    JsonNode patch(String path, Object body);

    JsonNode delete(String path);

    /** Where the controller is, as {@code scontrol ping} names it. */
    String host();

    /** An answer other than 2xx (or 404 from GET): the status and the problem's detail. */
    final class ApiException extends RuntimeException {
        private final int status;

        ApiException(int status, String detail) {
            super(detail);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    /** The controller could not be reached at all: said in one line, without a stack trace. */
    final class Unreachable extends RuntimeException {
        Unreachable(String message) {
            super(message);
        }
    }
}
