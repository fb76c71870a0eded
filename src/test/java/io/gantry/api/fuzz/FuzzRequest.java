package io.gantry.api.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** One generated request, with what it takes to send it again by hand. */
public record FuzzRequest(long index, String operation, String identity, String method, byte[] target,
        Map<String, String> headers, byte[] body) {

    /** The request as it went out, the body cut after {@code maxBody} characters. */
    public String reproduce(long seed, int maxBody) {
        StringBuilder text = new StringBuilder();
        text.append("seed ").append(seed).append(", request #").append(index).append(" (").append(operation)
                .append(" as ").append(identity).append("); rerun alone with -Dgantry.fuzz.seed=").append(seed)
                .append(" -Dgantry.fuzz.only=").append(index).append('\n');
        text.append(method).append(' ').append(printable(new String(target, StandardCharsets.ISO_8859_1))).append('\n');
        headers.forEach((name, value) -> text.append(name).append(": ")
                .append(value.length() > 80 ? value.substring(0, 80) + "..." : value).append('\n'));
        if (body != null) {
            String shown = new String(body, StandardCharsets.UTF_8);
            text.append('\n').append(shown.length() > maxBody ? shown.substring(0, maxBody) + "... (" + body.length
                    + " bytes in all)" : shown).append('\n');
        }
        return text.toString();
    }

    private static String printable(String target) {
        StringBuilder out = new StringBuilder();
        for (char c : target.toCharArray()) {
            out.append(c < 0x20 || c > 0x7e ? String.format("<%02x>", (int) c) : String.valueOf(c));
        }
        return out.length() > 2000 ? out.substring(0, 2000) + "..." : out.toString();
    }
}
