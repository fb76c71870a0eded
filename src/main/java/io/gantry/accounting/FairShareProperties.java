package io.gantry.accounting;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.fairshare.*}: how usage is counted for fair share. A job's billing per second is
 * {@code cpu-weight} x CPUs + {@code gpu-weight} x GPUs + {@code memory-gb-weight} x GB of memory
 * (Slurm's TRESBillingWeights), times its QOS usage factor; usage decays by half every
 * {@code decay-half-life} (PriorityDecayHalfLife) and is recomputed every {@code calc-period}
 * (PriorityCalcPeriod). With {@code usage-reset-period} (PriorityUsageResetPeriod: NONE, DAILY, WEEKLY,
 * MONTHLY, QUARTERLY, YEARLY) usage is also cleared when each period starts; the TRES-minutes budgets
 * (GrpTRESMins) count this same usage.
 */
@ConfigurationProperties("gantry.fairshare")
public record FairShareProperties(
        @DefaultValue("1.0") double cpuWeight,
        @DefaultValue("16.0") double gpuWeight,
        @DefaultValue("0.0") double memoryGbWeight,
        @DefaultValue("7d") Duration decayHalfLife,
        @DefaultValue("30s") Duration calcPeriod,
        @DefaultValue("NONE") UsageResetPeriod usageResetPeriod) {
}
