package io.gantry.engine;

/**
 * Slurm's {@code PriorityWeightTRES} (e.g. {@code CPU=1000,Mem=2000,GRES/gpu=3000}): each TRES's priority
 * factor is what the job asks of it over its partition's total of it, times its weight; the products are
 * added to the priority. Names are case-insensitive; {@code GRES/gpu:<type>} counts as {@code GRES/gpu}.
 */
public record TresPriorityWeights(long cpu, long mem, long gpu, long node) {

    public static final TresPriorityWeights NONE = new TresPriorityWeights(0, 0, 0, 0);

    public TresPriorityWeights {
        if (cpu < 0 || mem < 0 || gpu < 0 || node < 0) {
            throw new IllegalArgumentException("TRES priority weights must not be negative");
        }
    }

    /** Reads Slurm's notation; {@code null} or blank is {@link #NONE}. Throws with the bad item named. */
    public static TresPriorityWeights parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        long cpu = 0;
        long mem = 0;
        long gpu = 0;
        long node = 0;
        for (TresWeightItems.Item item : TresWeightItems.parse(text)) {
            long w;
            try {
                w = Long.parseLong(item.value());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + item.text() + "': weight is not a whole number", e);
            }
            if (w < 0) {
                throw new IllegalArgumentException("'" + item.text() + "': weight must not be negative");
            }
            switch (item.tres()) {
                case "cpu" -> cpu = w;
                case "mem" -> mem = w;
                case "node" -> node = w;
                default -> gpu = w;
            }
        }
        return new TresPriorityWeights(cpu, mem, gpu, node);
    }

    public boolean isNone() {
        return equals(NONE);
    }

    /** As slurm.conf writes it, zero weights left out. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        String[] names = { "CPU", "Mem", "Node", "GRES/gpu" };
        long[] w = { cpu, mem, node, gpu };
        for (int i = 0; i < w.length; i++) {
            if (w[i] != 0) {
                sb.append(sb.length() == 0 ? "" : ",").append(names[i]).append('=').append(w[i]);
            }
        }
        return sb.toString();
    }
}
