package io.gantry.engine;


/**
 * Slurm's {@code TRESBillingWeights} of a partition: what one CPU, one GB of memory, one GPU and one
 * node are worth in billing units. A job's {@code billing} TRES is the sum of weight x allocated TRES
 * (Slurm's default), or with {@code maxTres} (Slurm's {@code PriorityFlags=MAX_TRES}) the largest of
 * those products. Written as Slurm does, e.g. {@code CPU=1.0,Mem=0.25G,GRES/gpu=2.0}: names are
 * case-insensitive, a memory weight is per MB unless it ends in K, M, G or T (per that unit), and any
 * {@code GRES/gpu:<type>} counts as {@code GRES/gpu}. {@link #CPUS} (CPU=1, nothing else) is Slurm's
 * billing without weights.
 */
public record BillingWeights(double cpu, double memPerGb, double gpu, double node, boolean maxTres) {

    /** Billing = the job's CPUs, as Slurm's without TRESBillingWeights. */
    public static final BillingWeights CPUS = new BillingWeights(1, 0, 0, 0, false);

    public BillingWeights {
        if (!(cpu >= 0) || !(memPerGb >= 0) || !(gpu >= 0) || !(node >= 0)
                || Double.isInfinite(cpu + memPerGb + gpu + node)) {
            throw new IllegalArgumentException("billing weights must be finite and not negative");
        }
    }

    /** Reads Slurm's notation; {@code null} or blank is {@link #CPUS}. Throws with the bad item named. */
    public static BillingWeights parse(String text) {
        if (text == null || text.isBlank()) {
            return CPUS;
        }
        double cpu = 0;
        double mem = 0;
        double gpu = 0;
        double node = 0;
        for (TresWeightItems.Item item : TresWeightItems.parse(text)) {
            switch (item.tres()) {
                case "cpu" -> cpu = weight(item.text(), item.value());
                case "mem" -> mem = memoryPerGb(item.text(), item.value());
                case "node" -> node = weight(item.text(), item.value());
                default -> gpu = weight(item.text(), item.value());
            }
        }
        return new BillingWeights(cpu, mem, gpu, node, false);
    }

    public BillingWeights withMaxTres(boolean max) {
        return new BillingWeights(cpu, memPerGb, gpu, node, max);
    }

    /** The billing of what a job holds (Slurm's billable TRES, before it is truncated to a count). */
    public double billing(Tres tres) {
        double c = cpu * tres.cpu();
        double m = memPerGb * tres.memoryMb() / 1024.0;
        double g = gpu * tres.gpus();
        double n = node * tres.nodes();
        return maxTres ? Math.max(Math.max(c, m), Math.max(g, n)) : c + m + g + n;
    }

    /** The {@code billing} TRES count of what a job holds: {@link #billing} truncated, as Slurm stores it. */
    public long units(Tres tres) {
        double b = billing(tres);
        return b >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) b;
    }

    /** What one GPU's worth (a shared GPU's fraction) bills. */
    public double perGpu() {
        return gpu;
    }

    /** As {@code scontrol show partition} prints it: {@code CPU=1,Mem=0.25G,GRES/gpu=2}, zero weights left out. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        item(sb, "CPU", cpu, "");
        item(sb, "Mem", memPerGb, "G");
        item(sb, "Node", node, "");
        item(sb, "GRES/gpu", gpu, "");
        return sb.toString();
    }

    private static void item(StringBuilder sb, String name, double w, String suffix) {
        if (w == 0) {
            return;
        }
        if (sb.length() > 0) {
            sb.append(',');
        }
        String v = w == Math.rint(w) && Math.abs(w) < 1e15 ? Long.toString((long) w) : Double.toString(w);
        sb.append(name).append('=').append(v).append(suffix);
    }

    private static double weight(String part, String value) {
        double w;
        try {
            w = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + part + "': weight is not a number", e);
        }
        if (!(w >= 0) || Double.isInfinite(w)) {
            throw new IllegalArgumentException("'" + part + "': weight must be a finite number, not negative");
        }
        return w;
    }

    private static double memoryPerGb(String part, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("'" + part + "': weight is not a number");
        }
        char unit = Character.toUpperCase(value.charAt(value.length() - 1));
        // The weight is per this many MB: per MB by default, as Slurm.
        double mbPerUnit = switch (unit) {
            case 'K' -> 1.0 / 1024;
            case 'M' -> 1;
            case 'G' -> 1024;
            case 'T' -> 1024.0 * 1024;
            default -> 0;
        };
        if (mbPerUnit == 0) {
            return weight(part, value) * 1024;
        }
        return weight(part, value.substring(0, value.length() - 1)) * 1024 / mbPerUnit;
    }
}
