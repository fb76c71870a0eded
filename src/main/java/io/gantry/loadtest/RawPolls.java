package io.gantry.loadtest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

/**
 * The pseudo-agents' long polls over plain HTTP/1.1 on non-blocking sockets, a few selector threads for all
 * of them. The JDK's {@code HttpClient} costs the load generator more CPU per request than the controller
 * spends answering it (futures, per-exchange objects, its single selector thread for every connection): on
 * the two cores it shares with the controller, 12,500 pollers made its round trips ~1.5 s longer than the
 * controller's own time for the same polls. One connection per agent, one request on it at a time, the next
 * poll sent as soon as an answer is read, as the real agent does.
 */
final class RawPolls {

    /** What a finished poll reports: the status (or -1 with the error) and the body. */
    interface Answer {
        void answered(int status, String body, long roundTripNanos, String error);
    }

    private final InetSocketAddress address;
    private final String host;
    private final Loop[] loops;
    private int next;

    RawPolls(String base, int threads) {
        URI uri = URI.create(base);
        int port = uri.getPort() > 0 ? uri.getPort() : 80;
        this.address = new InetSocketAddress(uri.getHost(), port);
        this.host = uri.getHost() + ":" + port;
        this.loops = new Loop[Math.max(1, threads)];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = new Loop(i);
            loops[i].start();
        }
    }

    /**
     * A connection of one agent that polls {@code path} with the bodies {@code body} gives, until
     * {@code answer} is called for a poll after {@link #stop} (no next poll is sent then).
     */
    synchronized void start(String path, String bearer, Supplier<String> body, Answer answer) {
        Loop loop = loops[next++ % loops.length];
        loop.add(new Poller(path, bearer, body, answer, loop));
    }

    void stop() {
        for (Loop loop : loops) {
            loop.running = false;
            loop.selector.wakeup();
        }
    }

    private final class Loop extends Thread {
        private final Selector selector;
        private final Queue<Poller> added = new ConcurrentLinkedQueue<>();
        private final ByteBuffer read = ByteBuffer.allocateDirect(64 * 1024);
        private volatile boolean running = true;

        Loop(int index) {
            super("loadtest-polls-" + index);
            setDaemon(true);
            try {
                this.selector = Selector.open();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void add(Poller poller) {
            added.add(poller);
            selector.wakeup();
        }

        @Override
        public void run() {
            while (running) {
                try {
                    selector.select(1000);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                long now = System.nanoTime();
                for (int n = added.size(); n > 0; n--) {
                    Poller p = added.poll();
                    if (p == null) {
                        break;
                    }
                    if (p.retryAt - now > 0) {
                        added.add(p); // a failed poll is tried again a second later, not in a hot loop
                    } else {
                        p.connect();
                    }
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    Poller poller = (Poller) key.attachment();
                    if (!key.isValid()) {
                        continue;
                    }
                    try {
                        if (key.isConnectable() && poller.channel.finishConnect()) {
                            poller.send();
                        } else if (key.isWritable()) {
                            poller.write();
                        } else if (key.isReadable()) {
                            poller.read(read);
                        }
                    } catch (IOException e) {
                        poller.failed(e.toString());
                    }
                }
            }
        }
    }

    /** One agent's connection: a tiny HTTP/1.1 client for one request at a time. */
    private final class Poller {
        private final String path;
        private final String bearer;
        private final Supplier<String> body;
        private final Answer answer;
        private final Loop loop;
        private SocketChannel channel;
        private SelectionKey key;
        private ByteBuffer out;
        private byte[] in = new byte[1024];
        private int inLength;
        private long sent;
        private long retryAt = System.nanoTime();

        Poller(String path, String bearer, Supplier<String> body, Answer answer, Loop loop) {
            this.path = path;
            this.bearer = bearer;
            this.body = body;
            this.answer = answer;
            this.loop = loop;
        }

        void connect() {
            try {
                sent = System.nanoTime();
                channel = SocketChannel.open();
                channel.configureBlocking(false);
                key = channel.register(loop.selector, SelectionKey.OP_CONNECT, this);
                if (channel.connect(address)) {
                    send();
                }
            } catch (IOException e) {
                failed(e.toString());
            }
        }

        void send() throws IOException {
            String json = body.get();
            byte[] content = json.getBytes(StandardCharsets.UTF_8);
            String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + bearer
                    + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "
                    + content.length + "\r\n\r\n";
            byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
            out = ByteBuffer.allocate(headBytes.length + content.length).put(headBytes).put(content).flip();
            inLength = 0;
            if (sent == 0) {
                sent = System.nanoTime();
            }
            write();
        }

        void write() throws IOException {
            channel.write(out);
            key.interestOps(out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        void read(ByteBuffer buffer) throws IOException {
            buffer.clear();
            int n = channel.read(buffer);
            if (n < 0) {
                failed("connection closed by the controller");
                return;
            }
            buffer.flip();
            if (inLength + n > in.length) {
                in = java.util.Arrays.copyOf(in, Math.max(in.length * 2, inLength + n));
            }
            buffer.get(in, inLength, n);
            inLength += n;
            Response response = Response.parse(in, inLength);
            if (response == null) {
                return;
            }
            long roundTrip = System.nanoTime() - sent;
            sent = 0;
            answer.answered(response.status, response.body, roundTrip, null);
            if (!loop.running) {
                close();
            } else if (response.close) {
                close();
                loop.add(this);
            } else {
                send();
            }
        }

        void failed(String error) {
            long roundTrip = sent == 0 ? 0 : System.nanoTime() - sent;
            sent = 0;
            close();
            answer.answered(-1, null, roundTrip, error);
            retryAt = System.nanoTime() + 1_000_000_000L;
            if (loop.running) {
                loop.add(this);
            }
        }

        private void close() {
            try {
                if (key != null) {
                    key.cancel();
                }
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException e) {
                // closing a connection that failed: nothing more to learn
            }
        }
    }

    /** A whole response in {@code bytes[0..length)}, or null while it is not all there. */
    record Response(int status, String body, boolean close) {

        static Response parse(byte[] bytes, int length) {
            int headEnd = indexOf(bytes, length, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (headEnd < 0) {
                return null;
            }
            String head = new String(bytes, 0, headEnd, StandardCharsets.ISO_8859_1);
            String[] lines = head.split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            int contentLength = -1;
            boolean chunked = false;
            boolean close = false;
            for (int i = 1; i < lines.length; i++) {
                String line = lines[i].toLowerCase(Locale.ROOT);
                if (line.startsWith("content-length:")) {
                    contentLength = Integer.parseInt(line.substring(15).strip());
                } else if (line.startsWith("transfer-encoding:") && line.contains("chunked")) {
                    chunked = true;
                } else if (line.startsWith("connection:") && line.contains("close")) {
                    close = true;
                }
            }
            int bodyStart = headEnd + 4;
            if (chunked) {
                StringBuilder body = new StringBuilder();
                int at = bodyStart;
                while (true) {
                    int lineEnd = indexOf(bytes, length, at, "\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    if (lineEnd < 0) {
                        return null;
                    }
                    String size = new String(bytes, at, lineEnd - at, StandardCharsets.ISO_8859_1);
                    int semicolon = size.indexOf(';');
                    int chunk = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).strip(), 16);
                    int dataStart = lineEnd + 2;
                    if (chunk == 0) {
                        // The last chunk: a trailer-less end is "0\r\n\r\n".
                        return length >= dataStart + 2 ? new Response(status, body.toString(), close) : null;
                    }
                    if (length < dataStart + chunk + 2) {
                        return null;
                    }
                    body.append(new String(bytes, dataStart, chunk, StandardCharsets.UTF_8));
                    at = dataStart + chunk + 2;
                }
            }
            if (contentLength < 0) {
                contentLength = 0;
            }
            if (length < bodyStart + contentLength) {
                return null;
            }
            return new Response(status, new String(bytes, bodyStart, contentLength, StandardCharsets.UTF_8), close);
        }

        private static int indexOf(byte[] bytes, int length, byte[] what) {
            return indexOf(bytes, length, 0, what);
        }

        private static int indexOf(byte[] bytes, int length, int from, byte[] what) {
            outer:
            for (int i = from; i <= length - what.length; i++) {
                for (int j = 0; j < what.length; j++) {
                    if (bytes[i + j] != what[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }
    }
}
