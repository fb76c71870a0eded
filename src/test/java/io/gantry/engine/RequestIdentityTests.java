package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@link Request}'s equals and hashCode are written out by hand (the queue pass looks every job's request up
 * in its layouts): two requests that differ in any one component are different, and equal ones hash alike.
 * A component added to the record without a line here fails the first test, so it cannot be left out of
 * equals unnoticed.
 */
class RequestIdentityTests {

    private static final Constructor<?> CANONICAL = canonical();

    private static Constructor<?> canonical() {
        Class<?>[] types = Arrays.stream(Request.class.getRecordComponents()).map(RecordComponent::getType)
                .toArray(Class<?>[]::new);
        try {
            return Request.class.getDeclaredConstructor(types);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object[] plain() {
        return new Object[] {1, 1, 1, 0L, 0, 0, null, Constraint.NONE, false, false, null, null, 0, 0L, 0, 0L, 0, false,
            null, 0, 0};
    }

    /** One other value for each component, valid on its own against {@link #plain()}. */
    private static Map<String, Object> others() {
        Map<String, Object> others = new LinkedHashMap<>();
        others.put("nodes", 2);
        others.put("tasks", 2);
        others.put("cpusPerTask", 2);
        others.put("memoryMb", 4096L);
        others.put("gpus", 1);
        others.put("gpusPerNode", 1);
        others.put("gpuType", "a100");
        others.put("constraint", Constraint.parse("ib"));
        others.put("exclusive", true);
        others.put("oneBlock", true);
        others.put("nodelist", "n1");
        others.put("exclude", "n2");
        others.put("switches", 1);
        others.put("switchWaitSeconds", 60L);
        others.put("maxNodes", 1);
        others.put("timeMinSeconds", 60L);
        others.put("segment", 1);
        others.put("topoExclusive", true);
        others.put("shards", 1);
        return others;
    }

    private static Request make(Object[] args) throws ReflectiveOperationException {
        return (Request) CANONICAL.newInstance(args.clone());
    }

    private static int index(String component) {
        RecordComponent[] components = Request.class.getRecordComponents();
        for (int i = 0; i < components.length; i++) {
            if (components[i].getName().equals(component)) {
                return i;
            }
        }
        throw new IllegalArgumentException(component);
    }

    @Test
    void requestsThatDifferInAnyOneComponentAreDifferent() throws ReflectiveOperationException {
        Map<String, Object> others = others();
        Request plain = make(plain());
        for (Map.Entry<String, Object> other : others.entrySet()) {
            Object[] args = plain();
            args[index(other.getKey())] = other.getValue();
            assertThat(make(args)).as(other.getKey()).isNotEqualTo(plain);
            assertThat(plain).as(other.getKey()).isNotEqualTo(make(args));
        }
        // MIG instances: a profile needs a count, so each is varied against a request that has both.
        Object[] mig = plain();
        mig[index("migProfile")] = "1g.10gb";
        mig[index("migCount")] = 1;
        Object[] otherProfile = mig.clone();
        otherProfile[index("migProfile")] = "2g.20gb";
        Object[] otherCount = mig.clone();
        otherCount[index("migCount")] = 2;
        assertThat(make(otherProfile)).as("migProfile").isNotEqualTo(make(mig));
        assertThat(make(otherCount)).as("migCount").isNotEqualTo(make(mig));
        assertThat(make(mig)).as("a MIG request").isNotEqualTo(plain);

        assertThat(others.size() + 2).as("every component of Request is varied here")
                .isEqualTo(Request.class.getRecordComponents().length);
    }

    @Test
    void equalRequestsAreEqualAndHashAlike() throws ReflectiveOperationException {
        Map<String, Object> others = others();
        for (String component : others.keySet()) {
            Object[] args = plain();
            args[index(component)] = others.get(component);
            Request one = make(args);
            Request two = make(args);
            assertThat(one).as(component).isEqualTo(two).isNotSameAs(two);
            assertThat(one.hashCode()).as(component).isEqualTo(two.hashCode());
        }
        // A constraint's features are a set: written in another order, it is the same request.
        Object[] ab = plain();
        ab[index("constraint")] = Constraint.parse("a&b");
        Object[] ba = plain();
        ba[index("constraint")] = Constraint.parse("b&a");
        assertThat(make(ab)).isEqualTo(make(ba));
        assertThat(make(ab).hashCode()).isEqualTo(make(ba).hashCode());
    }
}
