package io.gantry.support;

import java.util.Comparator;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The integration test classes in the order failsafe found them, but in five ranks, so that the lanes end
 * together:
 * <ol>
 * <li>those marked {@link TimesTheHost}: their tests take turns, and their turns together are a long lane;</li>
 * <li>those that share the Spring context ({@link TestLocks#SHARED_CONTEXT}): they take turns too, and their
 * turns together are another; ranked here, the next one starts as soon as one ends, where ranked with the short
 * classes they all began late, one after another. With them the class that holds {@link TestLocks#QUIET} to
 * write: it waits for every busy class to end, so begun after them it ran alone at the end, for 100 s;
 * begun first, the busy classes wait for it instead, and the short ones fill the lanes meanwhile;</li>
 * <li>those marked {@link StartEarly}: they take a minute or two each, and begun last they would end last, alone
 * (the longest began after every node class and ended the phase 60 s after the others);</li>
 * <li>those that hold {@link TestLocks#NODE}: half a minute to a minute each (those of them that share
 * {@link TwoNodes} take turns on it, a lane of ~90 s);</li>
 * <li>the others, most of them seconds long, which fill the lanes to the end.</li>
 * </ol>
 * JUnit's worker-thread pool starts the ranks in this order, and a thread whose next class waits for a lock takes
 * the first that need not; within a rank it may start them from the end. {@code @Isolated} classes run alone
 * after all the others, whatever their rank.
 */
public final class HostFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(HostFirst::rank));
    }

    /**
     * 0 for a class that times the host; 1 for one that shares the context or wants the machine quiet; 2 for a long
     * one; 3 for one that uses the node; 4 else.
     */
    private static int rank(ClassDescriptor descriptor) {
        if (descriptor.isAnnotated(TimesTheHost.class)) {
            return 0;
        }
        if (holds(descriptor, TestLocks.SHARED_CONTEXT) || writes(descriptor, TestLocks.QUIET)) {
            return 1;
        }
        if (descriptor.isAnnotated(StartEarly.class)) {
            return 2;
        }
        return holds(descriptor, TestLocks.NODE) ? 3 : 4;
    }

    private static boolean holds(ClassDescriptor descriptor, String lock) {
        return descriptor.findRepeatableAnnotations(ResourceLock.class).stream().anyMatch(l -> l.value().equals(lock));
    }

    private static boolean writes(ClassDescriptor descriptor, String lock) {
        return descriptor.findRepeatableAnnotations(ResourceLock.class).stream()
                .anyMatch(l -> l.value().equals(lock) && l.mode() == ResourceAccessMode.READ_WRITE);
    }
}
