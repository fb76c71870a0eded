package io.gantry.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * An integration test class that takes a minute or more: {@link HostFirst} starts it before the node's classes
 * and the short ones, so that it is not among the last to begin while the other lanes have run dry. Such a
 * class keeps the machine busy (browsers, packaged controllers, thousands of requests), so it also holds
 * {@link TestLocks#QUIET} to read: the class that times a user's wait does not run beside it.
 * {@link #value} says what takes the time.
 */
@Documented
@ResourceLock(value = TestLocks.QUIET, mode = ResourceAccessMode.READ)
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface StartEarly {

    /** What takes the time, for a reader wondering why the class is here. */
    String value();
}
