package io.gantry.support;

import java.util.Comparator;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The integration test classes in the order failsafe found them, but those that hold
 * {@link TestLocks#HOST} first. They take turns, and together they take longer than all the others
 * (real agents, MPI, workflow tools), so the run is as short as their turns only if the first starts
 * at once and the others fill the second lane beside them.
 */
public final class HostFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparing(c -> !holdsHost(c)));
    }

    private static boolean holdsHost(ClassDescriptor descriptor) {
        return descriptor.findRepeatableAnnotations(ResourceLock.class).stream()
                .anyMatch(lock -> lock.value().equals(TestLocks.HOST));
    }
}
