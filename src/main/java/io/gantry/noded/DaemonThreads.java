package io.gantry.noded;

import java.util.concurrent.ThreadFactory;

/** Named daemon threads for the agent's executors: none of them may keep a stopping agent alive. */
final class DaemonThreads {

    private DaemonThreads() {
    }

    static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
