package io.gantry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The pseudo-agents' HTTP/1.1 reader: an answer is taken only once it is all there, however it is framed. */
class RawPollsTests {

    private static RawPolls.Response parse(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return RawPolls.Response.parse(bytes, bytes.length);
    }

    @Test
    void readsAnAnswerWithItsLength() {
        RawPolls.Response r = parse("HTTP/1.1 200 \r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"commands\":[]}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"commands\":[]}");
        assertThat(r.close()).isFalse();
    }

    @Test
    void waitsForTheRestOfAnAnswer() {
        assertThat(parse("HTTP/1.1 200 \r\nContent-Length: 15\r\n\r\n{\"comm")).isNull();
        assertThat(parse("HTTP/1.1 200 \r\nContent-Len")).isNull();
        assertThat(parse("HTTP/1.1 200 \r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")).isNull();
    }

    @Test
    void joinsChunksAndSeesAClosingController() {
        RawPolls.Response r = parse("HTTP/1.1 409 \r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n");
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.body()).isEqualTo("hello world");
        assertThat(r.close()).isTrue();
    }

    @Test
    void anAnswerWithoutABodyIsWhole() {
        RawPolls.Response r = parse("HTTP/1.1 204 \r\nDate: x\r\n\r\n");
        assertThat(r.status()).isEqualTo(204);
        assertThat(r.body()).isEmpty();
    }
}
