/**
 * The node daemon ({@code gantry agent}, Slurm's slurmd): runs on every compute node, joins the
 * controller, polls it for work, starts and fences jobs and their steps, and reports back. It runs
 * without Spring. Its wire records are in {@code protocol}; the controller's side of the same
 * conversation is {@link io.gantry.fleet}.
 */
package io.gantry.noded;
