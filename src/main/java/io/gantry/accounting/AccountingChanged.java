package io.gantry.accounting;

/**
 * Published when an account, association or QOS was written (handled after commit): the limits the
 * scheduler caches are stale, and a raised limit may let pending jobs start.
 */
public record AccountingChanged(String what) {
}
