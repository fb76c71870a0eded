package io.gantry.engine;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An account's place in the quota tree (issue 16): its parent, and the GPUs it is guaranteed, may
 * borrow beyond that and may lend of its idle guarantee. Amounts are GPU counts by type: the key
 * {@link #ANY} ({@code gres/gpu=N}) counts GPUs of any type, a type key ({@code gres/gpu:h100=N})
 * only GPUs on nodes of that type. A missing key in {@code guaranteed} is no guarantee; in
 * {@code maxBorrow} and {@code maxLend} it is no limit. Accounts without a guarantee are listed too,
 * so the engine knows the tree.
 */
public record Quota(String account, String parent, Map<String, Long> guaranteed, Map<String, Long> maxBorrow,
        Map<String, Long> maxLend) {

    /** The key of a GPU amount of any type. */
    public static final String ANY = "";

    public Quota {
        Objects.requireNonNull(account, "account");
        guaranteed = guaranteed == null ? Map.of() : Map.copyOf(guaranteed);
        maxBorrow = maxBorrow == null ? Map.of() : Map.copyOf(maxBorrow);
        maxLend = maxLend == null ? Map.of() : Map.copyOf(maxLend);
    }

    /** An account with no guarantee and no limits. */
    public static Quota none(String account, String parent) {
        return new Quota(account, parent, Map.of(), Map.of(), Map.of());
    }

    public long guaranteed(String key) {
        return guaranteed.getOrDefault(key, 0L);
    }

    public long maxBorrow(String key) {
        return maxBorrow.getOrDefault(key, Long.MAX_VALUE);
    }

    public long maxLend(String key) {
        return maxLend.getOrDefault(key, Long.MAX_VALUE);
    }

    /**
     * Reads GPU amounts in Slurm's TRES notation: {@code gres/gpu=512} or {@code gres/gpu:h100=64},
     * several separated by commas. Quotas count GPUs only, so any other TRES (cpu, mem, node) is
     * refused rather than silently ignored. Null or blank is no amount at all.
     *
     * @throws IllegalArgumentException with a message a user can act on
     */
    public static Map<String, Long> parseGpus(String text) {
        Map<String, Long> out = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String part : text.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("TRES item without '=': '" + part + "'");
            }
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            String type;
            if (key.equals("gres/gpu") || key.equals("gpu")) {
                type = ANY;
            } else if (key.startsWith("gres/gpu:") && key.length() > "gres/gpu:".length()) {
                type = part.substring(0, eq).trim().substring("gres/gpu:".length());
            } else {
                throw new IllegalArgumentException("'" + key + "' is not a GPU amount; quotas count GPUs: write "
                        + "gres/gpu=N (any type) or gres/gpu:TYPE=N");
            }
            long n;
            try {
                n = Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a GPU count: '" + value + "'", e);
            }
            if (n < 0) {
                throw new IllegalArgumentException("negative GPU count: " + n);
            }
            if (out.put(type, n) != null) {
                throw new IllegalArgumentException("'" + key + "' is given twice");
            }
        }
        return out;
    }
}
