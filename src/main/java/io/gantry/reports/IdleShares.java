package io.gantry.reports;

import java.math.BigInteger;

/**
 * Turns a bucket's sampled idle causes into causes that add up exactly to the report's
 * non-allocated GPU-seconds. The report's allocated time is exact (jobs' own start and end)
 * while causes are sampled, so the two can differ by what changed between samples. Down and
 * reserved are sampled in both, and are kept as they are: {@code down + draining} is the report's
 * down and {@code reserved} includes all of the report's reserved. The report's idle time is shared
 * among the sampled idle causes (backfill-reserved, limits, topology, fragmented, powered down, no demand) in
 * proportion, by largest remainder in whole GPU-seconds; idle time no sample saw (a bucket whose
 * samples found nothing idle, or sampled before causes were recorded) counts as no demand.
 */
final class IdleShares {

    private IdleShares() {
    }

    /**
     * @param down     the report's down GPU-seconds (sampled)
     * @param reserved the report's reserved GPU-seconds (advance reservations, sampled)
     * @param idle     the report's idle GPU-seconds (total - allocated - down - reserved)
     * @param sampled  the causes the bucket's samples recorded
     */
    static IdleCauses reconcile(long down, long reserved, long idle, IdleCauses sampled) {
        long draining = Math.min(Math.max(0, sampled.draining()), down);
        long heldForJobs = Math.max(0, sampled.reserved() - reserved);
        long[] weights = {heldForJobs, sampled.limits(), sampled.topology(), sampled.fragmented(),
                sampled.poweredDown(), sampled.noDemand()};
        long[] shares = share(idle, weights);
        return new IdleCauses(shares[5], reserved + shares[0], shares[3], shares[2], shares[1], draining,
                down - draining, shares[4]);
    }

    /** {@code amount} split in proportion to {@code weights} (largest remainder); all to the last when they are 0. */
    static long[] share(long amount, long[] weights) {
        long[] shares = new long[weights.length];
        BigInteger sum = BigInteger.ZERO;
        for (long w : weights) {
            sum = sum.add(BigInteger.valueOf(Math.max(0, w)));
        }
        if (amount <= 0) {
            return shares;
        }
        if (sum.signum() == 0) {
            shares[weights.length - 1] = amount;
            return shares;
        }
        BigInteger total = BigInteger.valueOf(amount);
        BigInteger[] remainders = new BigInteger[weights.length];
        long given = 0;
        for (int i = 0; i < weights.length; i++) {
            BigInteger[] qr = total.multiply(BigInteger.valueOf(Math.max(0, weights[i]))).divideAndRemainder(sum);
            shares[i] = qr[0].longValueExact();
            remainders[i] = qr[1];
            given += shares[i];
        }
        // What rounding down left (fewer GPU-seconds than causes) goes to the largest remainders, earliest first.
        for (long left = amount - given; left > 0; left--) {
            int best = -1;
            for (int i = 0; i < weights.length; i++) {
                if (best < 0 || remainders[i].compareTo(remainders[best]) > 0) {
                    best = i;
                }
            }
            shares[best]++;
            remainders[best] = BigInteger.valueOf(-1);
        }
        return shares;
    }
}
