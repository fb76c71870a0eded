package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TestDatabase;
import tools.jackson.databind.JsonNode;

/**
 * A leader and a follower on one PostgreSQL, and a client that connects from its own loopback
 * address (127.0.0.7): a write sent to the follower reaches the leader, which audits it with the
 * client's address, not the follower's; a client that sends the follower's headers itself, to the
 * leader or to the follower, is audited with its own address.
 */
class ForwardedClientAddressIntegrationTests {

    private static final String DATABASE = "gantry_forwarded_address_test";
    private static final String JWT_SECRET = "forwarded-address-jwt-secret-0123456789abcdef";
    private static final String CLIENT = "127.0.0.7";

    @TempDir
    Path dir;

    private OwnCluster cluster;
    private final List<ControllerProcess> controllers = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aWriteThroughAFollowerIsAuditedWithTheClientsAddressAndASpoofedOneIsIgnored() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("forwarded-test", 4, 0) + """
                  agents:
                    default-partitions: [batch]
                  security:
                    jwt-secret: %s
                """.formatted(JWT_SECRET));
        TestDatabase db = cluster.db();
        for (String name : List.of("a", "b")) {
            ControllerProcess c = cluster.controller(name);
            controllers.add(c);
            c.start();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> leaderUrl(db) != null);
        ControllerProcess first = controllers.get(0);
        ControllerProcess second = controllers.get(1);
        ControllerProcess leader = leaderUrl(db).endsWith(":" + first.port()) ? first : second;
        ControllerProcess follower = leader == first ? second : first;
        String admin = leader.api().adminToken();

        // Through the follower: the leader audits the client's address.
        String forwarded = "fwd-" + ProcessHandle.current().pid();
        assertThat(createAccount(follower.port(), admin, forwarded, "")).startsWith("HTTP/1.1 201");
        assertThat(auditedAddress(leader, admin, forwarded)).isEqualTo(CLIENT);

        // A client sending the follower's headers to the leader itself: its own address, whatever it claims.
        String spoofedAtLeader = "spl-" + ProcessHandle.current().pid();
        assertThat(createAccount(leader.port(), admin, spoofedAtLeader,
                "X-Gantry-Forwarded: 1\r\nX-Gantry-Client-Address: 10.9.9.9\r\nX-Forwarded-For: 10.9.9.9\r\n"))
                .startsWith("HTTP/1.1 201");
        assertThat(auditedAddress(leader, admin, spoofedAtLeader)).isEqualTo(CLIENT);

        // The same claim sent to the follower: it passes on the address it sees, not the claim.
        String spoofedAtFollower = "spf-" + ProcessHandle.current().pid();
        assertThat(createAccount(follower.port(), admin, spoofedAtFollower,
                "X-Gantry-Client-Address: 10.9.9.9\r\nX-Forwarded-For: 10.9.9.9\r\n")).startsWith("HTTP/1.1 201");
        assertThat(auditedAddress(leader, admin, spoofedAtFollower)).isEqualTo(CLIENT);
    }

    private static String auditedAddress(ControllerProcess leader, String admin, String account) {
        JsonNode items = leader.api().get("/api/v1/audit?entity=account&key=" + account, admin).json().get("items");
        assertThat(items).hasSize(1);
        return items.get(0).get("clientAddress").asString();
    }

    /** POST /api/v1/accounts from {@link #CLIENT}, with {@code extraHeaders}; the raw answer. */
    private static String createAccount(int port, String token, String name, String extraHeaders) throws Exception {
        byte[] body = ("{\"name\":\"" + name + "\"}").getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(CLIENT), 0));
            socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                    + "Authorization: Bearer " + token + "\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, application/problem+json\r\n" + extraHeaders
                    + "Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private static String leaderUrl(TestDatabase db) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.url(), db.username(), db.password());
                PreparedStatement s = c.prepareStatement("SELECT url FROM control_leader WHERE id = 1");
                ResultSet r = s.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException notYetMigrated) {
            return null;
        }
    }
}
