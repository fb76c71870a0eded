package io.gantry.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrdererContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLocksProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The classes that time the node first, then those that share the context or want the machine quiet, then those
 * that take minutes, then those that only use the node, the rest in the order they were found.
 */
class HostFirstTests {

    @ResourceLock(TestLocks.SHARED_CONTEXT)
    static class Shared {
    }

    @TimesTheHost
    static class Agents {
    }

    static class Plain {
    }

    @ResourceLock(TestLocks.QUIET)
    static class TimesAUsersWait {
    }

    @ResourceLock(value = TestLocks.NODE, mode = ResourceAccessMode.READ)
    static class UsesTheNode {
    }

    @ResourceLock("something-else")
    @TimesTheHost
    static class MoreAgents {
    }

    @GantryIntegrationTest
    static class SharedContext {
    }

    @OnTheNode
    static class RunsMpi {
    }

    @StartEarly("a minute of browser scenarios")
    static class Minutes {
    }

    @TwoNodes.Use
    static class RunsSteps {
    }

    @Test
    void classesTimingTheHostComeFirstThenTheSharedAndQuietOnesThenTheLongOnesThenTheNodesAndTheRestInOrder() {
        List<Descriptor> found = new ArrayList<>(List.of(new Descriptor(UsesTheNode.class), new Descriptor(Shared.class),
                new Descriptor(Agents.class), new Descriptor(Minutes.class), new Descriptor(RunsMpi.class),
                new Descriptor(SharedContext.class), new Descriptor(Plain.class), new Descriptor(MoreAgents.class),
                new Descriptor(TimesAUsersWait.class), new Descriptor(RunsSteps.class)));

        new HostFirst().orderClasses(new ClassOrdererContext() {
            @Override
            public List<? extends ClassDescriptor> getClassDescriptors() {
                return found;
            }

            @Override
            public Optional<String> getConfigurationParameter(String key) {
                return Optional.empty();
            }
        });

        assertThat(found).extracting(Descriptor::getTestClass)
                .containsExactly(Agents.class, MoreAgents.class, Shared.class, SharedContext.class, TimesAUsersWait.class,
                        Minutes.class, UsesTheNode.class, RunsMpi.class, RunsSteps.class, Plain.class);
    }

    @Test
    void twoClassesThatTimeTheHostInARowTakeTheTwoLanesAndEachKeepsItsOwn() {
        String first = HostTurn.Pairs.lockOf(Agents.class);
        String second = HostTurn.Pairs.lockOf(MoreAgents.class);

        assertThat(List.of(first, second)).containsExactlyInAnyOrder(TestLocks.HOST + ".1", TestLocks.HOST + ".2");
        assertThat(HostTurn.Pairs.lockOf(Agents.class)).isEqualTo(first);
        assertThat(new HostTurn.Pairs().provideForClass(MoreAgents.class)).extracting(ResourceLocksProvider.Lock::getKey)
                .containsExactly(second);
    }

    /** A found class, its annotations read as JUnit reads them (meta-annotations and repeats included). */
    private record Descriptor(Class<?> testClass) implements ClassDescriptor {

        @Override
        public Class<?> getTestClass() {
            return testClass;
        }

        @Override
        public String getDisplayName() {
            return testClass.getSimpleName();
        }

        @Override
        public boolean isAnnotated(Class<? extends Annotation> type) {
            return AnnotationSupport.isAnnotated(testClass, type);
        }

        @Override
        public <A extends Annotation> Optional<A> findAnnotation(Class<A> type) {
            return AnnotationSupport.findAnnotation(testClass, type);
        }

        @Override
        public <A extends Annotation> List<A> findRepeatableAnnotations(Class<A> type) {
            return AnnotationSupport.findRepeatableAnnotations(testClass, type);
        }
    }
}
