package io.gantry.support;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.parallel.ResourceLocksProvider;

/**
 * This machine's turn as a timed node, for the classes marked {@link TimesTheHost}: taken before a class's first
 * test (after its {@code @BeforeAll}, so that its set-up runs beside the class before it), given back after its
 * {@code @AfterAll} (its agents and controllers gone), first come first served.
 */
public final class HostTurn implements BeforeEachCallback, AfterAllCallback {

    private static final Semaphore TURN = new Semaphore(1, true);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(HostTurn.class);
    private static final String HELD = "held";

    @Override
    public void beforeEach(ExtensionContext context) throws InterruptedException {
        ExtensionContext testClass = context.getParent().orElseThrow();
        ExtensionContext.Store store = testClass.getStore(NAMESPACE);
        if (store.get(HELD) == null) {
            TURN.acquire();
            store.put(HELD, Boolean.TRUE);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getStore(NAMESPACE).remove(HELD) != null) {
            TURN.release();
        }
    }

    /**
     * {@link TestLocks#HOST}{@code .1} or {@code .2}, alternately in the order JUnit asks (the classes' order):
     * a class holds one of the two from its set-up to its end, so at most two such classes are in the lanes,
     * one with the turn and one setting up or waiting for it.
     */
    public static final class Pairs implements ResourceLocksProvider {

        private static final AtomicInteger ASKED = new AtomicInteger();
        private static final Map<Class<?>, String> LOCKS = new ConcurrentHashMap<>();

        @Override
        public Set<Lock> provideForClass(Class<?> testClass) {
            return Set.of(new Lock(lockOf(testClass)));
        }

        static String lockOf(Class<?> testClass) {
            return LOCKS.computeIfAbsent(testClass, c -> TestLocks.HOST + "." + (ASKED.getAndIncrement() % 2 + 1));
        }
    }
}
