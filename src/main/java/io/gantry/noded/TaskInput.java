package io.gantry.noded;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's standard input as srun sends it (STEP_INPUT): pieces written in order, each sequence
 * number once, on a thread of the task's own so the agent's step launcher never waits on a task that
 * does not read. At most {@link TaskProcess#MAX_PENDING_INPUT} bytes wait; beyond that new input is
 * dropped with a warning, as a terminal drops keys typed into a program that reads none.
 */
final class TaskInput {

    private static final Logger log = LoggerFactory.getLogger(TaskInput.class);
    private static final byte[] EOF = new byte[0];

    private final String name;
    private final Deque<byte[]> pending = new ArrayDeque<>();
    private long pendingBytes;
    private long lastSeq;
    private boolean closed;
    private OutputStream stdin;

    TaskInput(String name) {
        this.name = name;
    }

    /** Starts writing to the task's standard input (once its stage has read its environment). */
    synchronized void start(OutputStream stdin) {
        this.stdin = stdin;
        Thread writer = new Thread(this::write, name);
        writer.setDaemon(true);
        writer.start();
    }

    /** Queues {@code data} (and the end of input); false for a number seen already. */
    synchronized boolean accept(long seq, byte[] data, boolean eof) {
        if (seq <= lastSeq) {
            return false;
        }
        lastSeq = seq;
        if (closed) {
            return true;
        }
        if (data != null && data.length > 0) {
            if (pendingBytes + data.length > TaskProcess.MAX_PENDING_INPUT) {
                log.warn("{}: dropped {} bytes of input: the task has not read the {} before them", name, data.length,
                        pendingBytes);
            } else {
                pending.add(data);
                pendingBytes += data.length;
            }
        }
        if (eof) {
            pending.add(EOF);
            closed = true;
        }
        notifyAll();
        return true;
    }

    /** The task ended: the writer stops, and what waits is dropped. */
    synchronized void stop() {
        pending.clear();
        pendingBytes = 0;
        pending.add(EOF);
        closed = true;
        notifyAll();
    }

    private void write() {
        OutputStream out;
        synchronized (this) {
            out = stdin;
        }
        try (out) {
            while (true) {
                byte[] next;
                synchronized (this) {
                    while (pending.isEmpty()) {
                        wait();
                    }
                    next = pending.removeFirst();
                    pendingBytes -= next.length;
                }
                if (next == EOF) {
                    return;
                }
                out.write(next);
                out.flush();
            }
        } catch (IOException e) {
            // the task closed its input or ended: what waits is for no one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
