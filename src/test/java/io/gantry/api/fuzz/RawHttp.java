package io.gantry.api.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, one connection per request. {@code java.net.http} refuses to send
 * what the fuzz needs to send (a query with {@code %zz} or a raw 0xff byte is not a URI), and it
 * would wait for the end of an event stream; here the request target goes out byte for byte and
 * only the status, the headers and the first {@link #MAX_BODY} bytes of the answer are read.
 */
public final class RawHttp {

    /** Enough of any answer to read a problem detail or a submitted job's id; a jar download is cut here. */
    static final int MAX_BODY = 1 << 20;

    private final int port;
    private final int timeoutMillis;

    public RawHttp(int port, int timeoutMillis) {
        this.port = port;
        this.timeoutMillis = timeoutMillis;
    }

    /** What came back: status -1 when the server closed the connection without an answer. */
    public record Answer(int status, String contentType, String body, String failure) {

        public boolean timedOut() {
            return failure != null && failure.startsWith("timeout");
        }
    }

    public Answer send(String method, byte[] target, Map<String, String> headers, byte[] body) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes(method.getBytes(StandardCharsets.US_ASCII));
            head.write(' ');
            head.writeBytes(target);
            head.writeBytes(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".getBytes(StandardCharsets.US_ASCII));
            for (Map.Entry<String, String> header : headers.entrySet()) {
                head.writeBytes((header.getKey() + ": " + header.getValue() + "\r\n").getBytes(StandardCharsets.UTF_8));
            }
            if (body != null) {
                head.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            head.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            String writeFailure = null;
            try {
                out.write(head.toByteArray());
                if (body != null) {
                    out.write(body);
                }
                out.flush();
            } catch (IOException e) {
                // A server may answer (413) and close before a large body is all sent: read what it said.
                writeFailure = "write: " + e;
            }
            return read(new java.io.BufferedInputStream(socket.getInputStream()), writeFailure);
        } catch (SocketTimeoutException e) {
            return new Answer(-1, "", "", "timeout: no answer within " + timeoutMillis + " ms");
        } catch (IOException e) {
            return new Answer(-1, "", "", "connection: " + e);
        }
    }

    private static Answer read(InputStream in, String writeFailure) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            return new Answer(-1, "", "", writeFailure != null ? writeFailure : "closed without an answer");
        }
        String[] parts = statusLine.split(" ", 3);
        int status = parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
        String contentType = "";
        long length = -1;
        boolean chunked = false;
        for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-type" -> contentType = value;
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                default -> {
                }
            }
        }
        if (contentType.startsWith("text/event-stream")) {
            return new Answer(status, contentType, "", null);
        }
        byte[] body = chunked ? dechunk(in) : in.readNBytes((int) Math.min(length < 0 ? MAX_BODY : length, MAX_BODY));
        return new Answer(status, contentType, new String(body, StandardCharsets.UTF_8), null);
    }

    private static byte[] dechunk(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (body.size() < MAX_BODY) {
            String size = line(in);
            if (size == null || size.isBlank()) {
                break;
            }
            int semicolon = size.indexOf(';');
            int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (n == 0) {
                break;
            }
            body.writeBytes(in.readNBytes(Math.min(n, MAX_BODY - body.size())));
            line(in);
        }
        return body.toByteArray();
    }

    /** One CRLF-terminated line, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
    }
}
