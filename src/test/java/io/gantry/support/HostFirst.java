package io.gantry.support;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The integration test classes in the order failsafe found them, but in four ranks, so that the lanes end
 * together:
 * <ol>
 * <li>the {@code @Isolated} classes, which run alone: at the start, before any lane has begun, rather than
 * waiting at the end for every lane to run dry;</li>
 * <li>those that hold {@link TestLocks#HOST} (or one of whose tests does): they take turns, and their turns
 * together are the longest lane;</li>
 * <li>those that hold {@link TestLocks#NODE} or are marked {@link StartEarly}: they take a minute or more
 * each, and begun last they would end last, alone;</li>
 * <li>the others, most of them seconds long, which fill the lanes to the end.</li>
 * </ol>
 * JUnit's worker-thread pool starts the ranks in this order; within a rank it may start them from the end.
 */
public final class HostFirst implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingInt(HostFirst::rank));
    }

    private static int rank(ClassDescriptor descriptor) {
        if (descriptor.isAnnotated(Isolated.class)) {
            return 0;
        }
        if (holds(descriptor, TestLocks.HOST)) {
            return 1;
        }
        return holds(descriptor, TestLocks.NODE) || descriptor.isAnnotated(StartEarly.class) ? 2 : 3;
    }

    private static boolean holds(ClassDescriptor descriptor, String lock) {
        return Stream.concat(descriptor.findRepeatableAnnotations(ResourceLock.class).stream(),
                Arrays.stream(descriptor.getTestClass().getDeclaredMethods())
                        .flatMap(method -> AnnotationSupport.findRepeatableAnnotations(method, ResourceLock.class).stream()))
                .anyMatch(l -> l.value().equals(lock));
    }
}
