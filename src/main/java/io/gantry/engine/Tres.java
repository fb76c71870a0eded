package io.gantry.engine;

/**
 * A quantity of trackable resources (Slurm's TRES): CPUs, memory in MiB, GPUs and nodes.
 * Arithmetic is exact: an overflow or a negative result is a bug, so it throws.
 * {@link #UNLIMITED} fields stand for "no limit" when a Tres is used as a limit.
 */
public record Tres(long cpu, long memoryMb, long gpus, long nodes) {

    public static final Tres ZERO = new Tres(0, 0, 0, 0);
    public static final Tres UNLIMITED = new Tres(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);

    public Tres {
        if (cpu < 0 || memoryMb < 0 || gpus < 0 || nodes < 0) {
            throw new IllegalArgumentException("TRES cannot be negative: cpu=" + cpu + " mem=" + memoryMb
                    + " gpus=" + gpus + " nodes=" + nodes);
        }
    }

    public static Tres of(long cpu, long memoryMb, long gpus, long nodes) {
        return new Tres(cpu, memoryMb, gpus, nodes);
    }

    /** What an allocation holds in all: its CPUs, memory and GPUs summed, one node per entry. */
    public static Tres of(java.util.List<NodeAllocation> allocation) {
        long cpu = 0;
        long mem = 0;
        long gpus = 0;
        for (NodeAllocation a : allocation) {
            cpu = Math.addExact(cpu, a.cpus());
            mem = Math.addExact(mem, a.memoryMb());
            gpus = Math.addExact(gpus, a.gpus());
        }
        return new Tres(cpu, mem, gpus, allocation.size());
    }

    public Tres plus(Tres other) {
        return new Tres(Math.addExact(cpu, other.cpu), Math.addExact(memoryMb, other.memoryMb),
                Math.addExact(gpus, other.gpus), Math.addExact(nodes, other.nodes));
    }

    /** Adding to an unlimited field keeps it unlimited instead of overflowing. */
    public Tres plusSaturating(Tres other) {
        return new Tres(sat(cpu, other.cpu), sat(memoryMb, other.memoryMb), sat(gpus, other.gpus),
                sat(nodes, other.nodes));
    }

    public Tres minus(Tres other) {
        return new Tres(Math.subtractExact(cpu, other.cpu), Math.subtractExact(memoryMb, other.memoryMb),
                Math.subtractExact(gpus, other.gpus), Math.subtractExact(nodes, other.nodes));
    }

    public Tres times(long factor) {
        return new Tres(Math.multiplyExact(cpu, factor), Math.multiplyExact(memoryMb, factor),
                Math.multiplyExact(gpus, factor), Math.multiplyExact(nodes, factor));
    }

    /** True when every field of this is at most the same field of {@code limit}. */
    public boolean fitsWithin(Tres limit) {
        return cpu <= limit.cpu && memoryMb <= limit.memoryMb && gpus <= limit.gpus && nodes <= limit.nodes;
    }

    public boolean isZero() {
        return equals(ZERO);
    }

    /**
     * Reads Slurm's TRES notation, e.g. {@code cpu=64,mem=256G,gres/gpu=8,node=1}. Missing fields
     * are {@code missing}'s (use {@link #UNLIMITED} for limits, {@link #ZERO} for amounts).
     */
    public static Tres parse(String text, Tres missing) {
        long cpu = missing.cpu;
        long mem = missing.memoryMb;
        long gpus = missing.gpus;
        long nodes = missing.nodes;
        if (text == null || text.isBlank()) {
            return missing;
        }
        for (String part : text.split(",")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("TRES item without '=': " + part);
            }
            String key = part.substring(0, eq).trim().toLowerCase(java.util.Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            switch (key) {
                case "cpu" -> cpu = parseCount(value);
                case "mem" -> mem = parseMemoryMb(value);
                case "gres/gpu", "gpu" -> gpus = parseCount(value);
                case "node" -> nodes = parseCount(value);
                default -> {
                    if (!key.startsWith("gres/gpu:")) {
                        throw new IllegalArgumentException("unknown TRES '" + key + "'");
                    }
                    gpus = parseCount(value);
                }
            }
        }
        return new Tres(cpu, mem, gpus, nodes);
    }

    private static long parseCount(String value) {
        try {
            long v = Long.parseLong(value);
            if (v < 0) {
                throw new IllegalArgumentException("negative TRES count: " + value);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a TRES count: " + value, e);
        }
    }

    private static long parseMemoryMb(String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("empty memory value");
        }
        char unit = Character.toUpperCase(value.charAt(value.length() - 1));
        long factor = switch (unit) {
            case 'K' -> -1024;
            case 'M' -> 1;
            case 'G' -> 1024;
            case 'T' -> 1024L * 1024;
            default -> 0;
        };
        if (factor == 0) {
            return parseCount(value);
        }
        long n = parseCount(value.substring(0, value.length() - 1));
        return factor < 0 ? (n + 1023) / 1024 : Math.multiplyExact(n, factor);
    }

    private static long sat(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** Slurm's notation, leaving out zero and unlimited fields. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        append(sb, "cpu", cpu, String.valueOf(cpu));
        append(sb, "mem", memoryMb, memoryMb % 1024 == 0 ? (memoryMb / 1024) + "G" : memoryMb + "M");
        append(sb, "gres/gpu", gpus, String.valueOf(gpus));
        append(sb, "node", nodes, String.valueOf(nodes));
        return sb.toString();
    }

    private static void append(StringBuilder sb, String key, long raw, String value) {
        if (raw == 0 || raw == Long.MAX_VALUE) {
            return;
        }
        if (sb.length() > 0) {
            sb.append(',');
        }
        sb.append(key).append('=').append(value);
    }
}
