package io.gantry.support;

import java.util.Arrays;
import java.util.Comparator;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The integration test classes in the order failsafe found them, but those that hold
 * {@link TestLocks#HOST} (or one of whose tests does) first: they start real agents, jobs, MPI and workflow tools and are the
 * longest, so starting them first keeps one of them from being the last to begin while the others
 * have all ended (JUnit schedules classes in the order given).
 */
public final class HostFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparing(c -> !holdsHost(c)));
    }

    /** Whether the class, or one of its tests, holds {@link TestLocks#HOST}. */
    private static boolean holdsHost(ClassDescriptor descriptor) {
        return descriptor.findRepeatableAnnotations(ResourceLock.class).stream().anyMatch(HostFirst::host)
                || Arrays.stream(descriptor.getTestClass().getDeclaredMethods()).anyMatch(method ->
                        AnnotationSupport.findRepeatableAnnotations(method, ResourceLock.class).stream()
                                .anyMatch(HostFirst::host));
    }

    private static boolean host(ResourceLock lock) {
        return lock.value().equals(TestLocks.HOST);
    }
}
