package io.gantry.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * An integration test class that uses this machine as a node without timing it (MPI, containers, srun, tmux,
 * workflow tools): it holds {@link TestLocks#NODE} to read, so {@link HostFirst} starts it early, and
 * {@link TestLocks#QUIET} to read, since it keeps the cores busy for minutes.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ResourceLock(value = TestLocks.NODE, mode = ResourceAccessMode.READ)
@ResourceLock(value = TestLocks.QUIET, mode = ResourceAccessMode.READ)
public @interface OnTheNode {
}
