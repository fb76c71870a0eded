package io.gantry.support;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The integration test classes in the order failsafe found them, but those that hold {@link TestLocks#HOST}
 * (or one of whose tests does) first, then those that hold {@link TestLocks#NODE}: they start real agents,
 * jobs, MPI and workflow tools and are the longest, and the {@code HOST} classes take turns, so starting them
 * first keeps one of them from being the last to begin while the others have all ended. JUnit's
 * worker-thread pool starts the ranks in this order; within a rank it may start them from the end.
 */
public final class HostFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(HostFirst::rank));
    }

    /** 0 for a class that holds the host, or one of whose tests does; 1 for one that holds the node; 2 else. */
    private static int rank(ClassDescriptor descriptor) {
        return holds(descriptor, TestLocks.HOST) ? 0 : holds(descriptor, TestLocks.NODE) ? 1 : 2;
    }

    private static boolean holds(ClassDescriptor descriptor, String lock) {
        return Stream.concat(descriptor.findRepeatableAnnotations(ResourceLock.class).stream(),
                Arrays.stream(descriptor.getTestClass().getDeclaredMethods())
                        .flatMap(method -> AnnotationSupport.findRepeatableAnnotations(method, ResourceLock.class).stream()))
                .anyMatch(l -> l.value().equals(lock));
    }
}
