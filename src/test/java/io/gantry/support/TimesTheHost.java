package io.gantry.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * An integration test class that times this machine as a node (see {@link TestLocks#HOST}): its tests take
 * turns with the other such classes' tests, while its set-up ({@code @BeforeAll}: a controller, agents, users)
 * runs beside the tests of the class before it. {@link HostTurn} holds the turn from its first test to the end
 * of its {@code @AfterAll}; {@link HostTurn.Pairs} lets at most two such classes into the lanes at once (one
 * with the turn, one setting up or waiting for it), so that they never fill the lanes with waiting classes.
 * {@link HostFirst} starts them first: their turns together are the longest lane.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ResourceLock(providers = HostTurn.Pairs.class)
@ExtendWith(HostTurn.class)
public @interface TimesTheHost {
}
