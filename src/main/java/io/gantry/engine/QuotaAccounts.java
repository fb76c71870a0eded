package io.gantry.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The account tree as {@link QuotaBook} walks it: accounts by index (sorted by name), each one's
 * parent (-1 for a root) and children, and the path from an account up to its root. Apart from the
 * book's counts so that the tree's shape is built and read in one place, and the ledger only adds up.
 */
final class QuotaAccounts {

    /** The deepest a parent chain is followed; a longer one is taken as a loop. */
    static final int MAX_DEPTH = 64;

    private final Map<String, Quota> tree = new HashMap<>();
    private final Map<String, String> memberCache = new HashMap<>();
    private final Map<String, int[]> paths = new HashMap<>();
    private final Map<String, Integer> index = new HashMap<>();
    private final String[] names;
    private final int[] parent;
    private final int[][] children;

    /**
     * The accounts of {@code quotas}; with {@code indexed} false (quotas are off) only their
     * {@link Quota}s are kept, and no account has an index or a path.
     */
    QuotaAccounts(List<Quota> quotas, boolean indexed) {
        for (Quota q : quotas) {
            tree.put(q.account(), q);
        }
        if (!indexed) {
            names = new String[0];
            parent = new int[0];
            children = new int[0][];
            return;
        }
        names = new TreeSet<>(tree.keySet()).toArray(String[]::new);
        int count = names.length;
        for (int i = 0; i < count; i++) {
            index.put(names[i], i);
        }
        parent = new int[count];
        List<List<Integer>> kids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            kids.add(new ArrayList<>());
        }
        for (int i = 0; i < count; i++) {
            Integer p = tree.get(names[i]).parent() == null ? null : index.get(tree.get(names[i]).parent());
            parent[i] = p == null ? -1 : p;
        }
        // A parent chain that loops (which the accounts API refuses) is cut where it would close.
        for (int i = 0; i < count; i++) {
            int steps = 0;
            for (int a = parent[i]; a >= 0; a = parent[a]) {
                if (a == i || ++steps > MAX_DEPTH) {
                    parent[i] = -1;
                    break;
                }
            }
        }
        for (int i = 0; i < count; i++) {
            if (parent[i] >= 0) {
                kids.get(parent[i]).add(i);
            }
        }
        children = new int[count][];
        for (int i = 0; i < count; i++) {
            children[i] = kids.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Account names by index. */
    String[] names() {
        return names;
    }

    /** Each account's parent's index, -1 for a root. */
    int[] parents() {
        return parent;
    }

    /** Each account's children's indices. */
    int[][] children() {
        return children;
    }

    Quota quota(String account) {
        return tree.get(account);
    }

    /** The index of {@code account}, or null for an account the tree does not know. */
    Integer indexOf(String account) {
        return account == null ? null : index.get(account);
    }

    /** How many accounts there are from {@code at} up to its root, itself included; 0 for -1. */
    int depth(int at) {
        int d = 0;
        for (int a = at; a >= 0; a = parent[a]) {
            d++;
        }
        return d;
    }

    /** The account's index and its ancestors' up to its root; empty for an account the tree does not know. */
    int[] path(String account) {
        int[] known = paths.get(account);
        if (known != null) {
            return known;
        }
        Integer start = indexOf(account);
        int[] out;
        if (start == null) {
            out = new int[0];
        } else {
            out = new int[depth(start)];
            int i = 0;
            for (int a = start; a >= 0; a = parent[a]) {
                out[i++] = a;
            }
        }
        paths.put(account, out);
        return out;
    }

    /**
     * The nearest account at or above {@code account} that holds a guarantee, else its top-level
     * account: QOS preemption acts within it.
     */
    String member(String account) {
        String known = memberCache.get(account);
        if (known != null) {
            return known;
        }
        String top = account;
        String found = null;
        int depth = 0;
        for (String a = account; a != null && depth < MAX_DEPTH; depth++) {
            Quota q = tree.get(a);
            if (q == null) {
                break;
            }
            if (hasGuarantee(q)) {
                found = a;
                break;
            }
            if (q.parent() != null) {
                top = a;
            }
            a = q.parent();
        }
        String m = found != null ? found : top;
        memberCache.put(account, m);
        return m;
    }

    /** {@code account} and the names above it, by the accounts' own parents (not the cut tree). */
    List<String> upward(String account) {
        List<String> out = new ArrayList<>();
        for (String a = account; a != null && out.size() < MAX_DEPTH; a = tree.containsKey(a) ? tree.get(a).parent()
                : null) {
            out.add(a);
        }
        return out;
    }

    static boolean contains(int[] path, int a) {
        for (int p : path) {
            if (p == a) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasGuarantee(Quota q) {
        for (long v : q.guaranteed().values()) {
            if (v > 0) {
                return true;
            }
        }
        return false;
    }
}
