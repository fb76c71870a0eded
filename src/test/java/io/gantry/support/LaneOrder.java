package io.gantry.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The order failsafe starts the integration test classes in, so that its lanes end together (JUnit
 * starts classes in the order given; otherwise found order is kept within each kind):
 * <ol>
 * <li>the classes of the shared Spring context ({@link TestLocks#SHARED_CONTEXT}) take turns, so they
 * form one lane that must run from the start: one of them is given every other place, beside</li>
 * <li>the classes that hold {@link TestLocks#HOST} (or one of whose tests does), the longest (real agents,
 * jobs, MPI, workflow tools), then the others;</li>
 * <li>{@code @Isolated} classes last: each runs alone, so anywhere else it would stop every lane.</li>
 * </ol>
 */
public final class LaneOrder implements ClassOrderer {

    @Override
    public void orderClasses(ClassOrdererContext context) {
        List<ClassDescriptor> shared = new ArrayList<>();
        List<ClassDescriptor> host = new ArrayList<>();
        List<ClassDescriptor> others = new ArrayList<>();
        List<ClassDescriptor> isolated = new ArrayList<>();
        for (ClassDescriptor c : context.getClassDescriptors()) {
            if (c.isAnnotated(Isolated.class)) {
                isolated.add(c);
            } else if (holds(c, TestLocks.SHARED_CONTEXT)) {
                shared.add(c);
            } else if (holds(c, TestLocks.HOST)) {
                host.add(c);
            } else {
                others.add(c);
            }
        }
        host.addAll(others);
        List<ClassDescriptor> ordered = new ArrayList<>();
        Iterator<ClassDescriptor> s = shared.iterator();
        Iterator<ClassDescriptor> h = host.iterator();
        while (s.hasNext() || h.hasNext()) {
            if (s.hasNext()) {
                ordered.add(s.next());
            }
            if (h.hasNext()) {
                ordered.add(h.next());
            }
        }
        ordered.addAll(isolated);
        Map<ClassDescriptor, Integer> place = new IdentityHashMap<>();
        for (ClassDescriptor c : ordered) {
            place.put(c, place.size());
        }
        context.getClassDescriptors().sort(Comparator.comparingInt(place::get));
    }

    /** Whether the class, or one of its tests, holds {@code lock}. */
    private static boolean holds(ClassDescriptor descriptor, String lock) {
        return descriptor.findRepeatableAnnotations(ResourceLock.class).stream().anyMatch(l -> l.value().equals(lock))
                || Arrays.stream(descriptor.getTestClass().getDeclaredMethods()).anyMatch(method ->
                        AnnotationSupport.findRepeatableAnnotations(method, ResourceLock.class).stream()
                                .anyMatch(l -> l.value().equals(lock)));
    }
}
