package io.gantry.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An integration test class that takes a minute or more: {@link HostFirst} starts it with the node's classes,
 * before the short ones, so that it is not among the last to begin while the other lanes have run dry.
 * {@link #value} says what takes the time.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface StartEarly {

    /** What takes the time, for a reader wondering why the class is here. */
    String value();
}
