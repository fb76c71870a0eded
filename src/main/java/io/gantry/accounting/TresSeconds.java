package io.gantry.accounting;

import io.gantry.engine.Tres;

/**
 * One row of budget usage: TRES-seconds of CPUs, memory (MB), nodes and GPUs, the wall-clock seconds GrpWall
 * counts and billing-seconds, each already times the QOS's usage factor. Named fields instead of the arrays it
 * replaces, whose rows of 4, 5 or 6 slots were read past their end.
 */
record TresSeconds(double cpu, double memMb, double node, double gpu, double wall, double billing) {

    static final TresSeconds ZERO = new TresSeconds(0, 0, 0, 0, 0, 0);

    TresSeconds plus(TresSeconds more) {
        return new TresSeconds(cpu + more.cpu, memMb + more.memMb, node + more.node, gpu + more.gpu, wall + more.wall,
                billing + more.billing);
    }

    TresSeconds times(double factor) {
        return new TresSeconds(cpu * factor, memMb * factor, node * factor, gpu * factor, wall * factor,
                billing * factor);
    }

    TresSeconds withWall(double seconds) {
        return new TresSeconds(cpu, memMb, node, gpu, seconds, billing);
    }

    TresSeconds withBilling(double seconds) {
        return new TresSeconds(cpu, memMb, node, gpu, wall, seconds);
    }

    /** The TRES-seconds as whole seconds, what the engine's budgets take. */
    Tres inSeconds() {
        return Tres.of((long) cpu, (long) memMb, (long) gpu, (long) node);
    }

    /** The TRES-seconds as whole minutes, as GrpTRESMins and sshare's GrpTRESRaw show them. */
    Tres inMinutes() {
        return Tres.of((long) (cpu / 60), (long) (memMb / 60), (long) (gpu / 60), (long) (node / 60));
    }

    /** Whole billing-minutes, as a {@code billing=N} in GrpTRESMins counts them. */
    long billingMinutes() {
        return (long) (billing / 60);
    }
}
