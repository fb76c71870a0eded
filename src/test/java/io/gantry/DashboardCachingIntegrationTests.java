package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;

/**
 * The dashboard loads light and caches right: its hashed scripts and styles come gzip-compressed and
 * are kept by the browser for a year, index.html is revalidated on every load (so a new build is seen
 * at once) and answered 304 when unchanged, and large API answers are compressed too. Needs the
 * built dashboard (frontend/dist) on the class path, as any build without -DskipFrontend leaves it.
 */
@GantryIntegrationTest
class DashboardCachingIntegrationTests {

    private static final Pattern ASSET = Pattern.compile("(?:src|href)=\"\\.?/(assets/[^\"]+\\.js)\"");

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void hashedAssetsAreCompressedAndCachedForAYearWhileIndexHtmlIsRevalidated() throws Exception {
        HttpResponse<byte[]> index = get("/", "gzip");
        assertThat(index.statusCode()).as("GET / serves the dashboard (build frontend/dist first)").isEqualTo(200);
        String html = body(index);
        assertThat(html).contains("<div id=\"root\">");
        String indexCache = index.headers().firstValue("Cache-Control").orElse("");
        assertThat(indexCache).contains("no-cache").doesNotContain("max-age=31536000").doesNotContain("no-store");

        // A reload revalidates index.html and gets no body back when it did not change.
        String lastModified = index.headers().firstValue("Last-Modified").orElseThrow();
        HttpResponse<byte[]> reload = http.send(request("/", "gzip").header("If-Modified-Since", lastModified).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(reload.statusCode()).isEqualTo(304);
        assertThat(reload.body()).isEmpty();

        Matcher script = ASSET.matcher(html);
        assertThat(script.find()).as("index.html names a hashed script: %s", html).isTrue();
        String asset = "/" + script.group(1);

        HttpResponse<byte[]> compressed = get(asset, "gzip, deflate, br");
        assertThat(compressed.statusCode()).isEqualTo(200);
        assertThat(compressed.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(compressed.headers().firstValue("Cache-Control")).hasValueSatisfying(c -> assertThat(c)
                .contains("max-age=31536000").contains("public").contains("immutable").doesNotContain("no-store"));
        assertThat(compressed.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("javascript"));

        // A client that takes no compression gets the same script, plain, and it is several times larger.
        HttpResponse<byte[]> plain = get(asset, null);
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(gunzip(compressed.body())).isEqualTo(plain.body());
        assertThat(compressed.body().length).isLessThan(plain.body().length / 2);

        assertThat(get("/assets/no-such-file.js", "gzip").statusCode()).isEqualTo(404);
    }

    @Test
    void largeApiAnswersAreCompressed() throws Exception {
        String token = new ApiClient(port).adminToken();
        HttpResponse<byte[]> nodes = http.send(request("/api/v1/nodes?size=100", "gzip")
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(nodes.statusCode()).isEqualTo(200);
        assertThat(nodes.headers().firstValue("Content-Encoding")).hasValue("gzip");
        String json = new String(gunzip(nodes.body()), StandardCharsets.UTF_8);
        assertThat(json).startsWith("{").contains("\"items\"");
        // API answers still are never stored by caches: they hold users' data.
        assertThat(nodes.headers().firstValue("Cache-Control")).hasValueSatisfying(c -> assertThat(c).contains("no-store"));
    }

    private HttpResponse<byte[]> get(String path, String acceptEncoding) throws IOException, InterruptedException {
        return http.send(request(path, acceptEncoding).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest.Builder request(String path, String acceptEncoding) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (acceptEncoding != null) {
            builder.header("Accept-Encoding", acceptEncoding);
        }
        return builder;
    }

    private static String body(HttpResponse<byte[]> response) throws IOException {
        byte[] bytes = response.headers().firstValue("Content-Encoding").filter("gzip"::equals).isPresent()
                ? gunzip(response.body()) : response.body();
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] gunzip(byte[] bytes) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            return in.readAllBytes();
        }
    }
}
