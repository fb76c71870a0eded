package io.gantry.api;

/** A request body over {@code gantry.api.max-request-bytes}: 413, before more of it is read. */
public class RequestBodyTooLarge extends GantryException {

    public RequestBodyTooLarge(long maxBytes) {
        super(ProblemType.PAYLOAD_TOO_LARGE, "Request body exceeds " + maxBytes + " bytes");
    }
}
