package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Slurm's Fair Tree fair-share algorithm. Siblings (the sub-accounts and users of one account)
 * are ranked by their Level Fairshare, {@code LF = S / U}: their share of the siblings' shares
 * over their share of the siblings' usage. The tree is walked depth first, highest LF first, and
 * every user association met is given the next rank; its fair-share factor is
 * {@code rank / number of user associations}, so the user visited first gets 1.0. Siblings with
 * equal LF tie: tied users get the same rank, and the children of tied accounts are merged and
 * ranked together. Usage is whatever the caller accrued (decayed, in billing-seconds); an account's
 * usage is the sum of its users' below it.
 */
public final class FairTree {

    private FairTree() {
    }

    /** An account; {@code parent} null for the root. {@code shares} is Slurm's Fairshare (raw shares). */
    public record Account(String name, String parent, long shares) {

        public Account {
            Objects.requireNonNull(name, "name");
            if (shares < 0) {
                throw new IllegalArgumentException("account " + name + ": shares must not be negative");
            }
        }
    }

    /** A user in an account, with its raw shares. */
    public record User(String account, String user, long shares) {

        public User {
            Objects.requireNonNull(account, "account");
            Objects.requireNonNull(user, "user");
            if (shares < 0) {
                throw new IllegalArgumentException("user " + user + ": shares must not be negative");
            }
        }
    }

    /**
     * One line of the tree as sshare shows it: {@code user} null for an account. Shares and usage
     * are normalised among siblings; {@code levelFairShare} is their ratio (infinite when it has no
     * usage); {@code fairShare} is the factor (users only; NaN for accounts).
     */
    public record Line(String account, String user, String parent, int depth, long rawShares, double normShares,
            double rawUsage, double effectiveUsage, double levelFairShare, double fairShare) {
    }

    /** The tree in the order it was walked, and each user association's factor. */
    public record Result(List<Line> lines, Map<String, Map<String, Double>> factors) {

        /** The factor of {@code user} in {@code account}; 0 when that association is unknown. */
        public double factor(String account, String user) {
            Map<String, Double> users = factors.get(account);
            Double f = users == null ? null : users.get(user);
            return f == null ? 0 : f;
        }
    }

    /** Usage keys: usage.get(account).get(user) = that association's (decayed) usage. */
    public static Result compute(List<Account> accounts, List<User> users, Map<String, Map<String, Double>> usage) {
        return new Walk(accounts, users, usage).run();
    }

    private static final class Node {
        final String account;
        final String user;
        final String parent;
        final long shares;
        final List<Node> children = new ArrayList<>();
        double usage;
        double normShares;
        double effectiveUsage;
        double levelFs;
        int depth;

        Node(String account, String user, String parent, long shares) {
            this.account = account;
            this.user = user;
            this.parent = parent;
            this.shares = shares;
        }

        boolean isUser() {
            return user != null;
        }
    }

    private static final class Walk {
        private final Map<String, Node> accounts = new LinkedHashMap<>();
        private final List<Node> roots = new ArrayList<>();
        private final List<Line> lines = new ArrayList<>();
        private final Map<String, Map<String, Double>> factors = new HashMap<>();
        private int userCount;
        private int nextRank;

        Walk(List<Account> accountList, List<User> userList, Map<String, Map<String, Double>> usage) {
            for (Account a : accountList) {
                accounts.put(a.name(), new Node(a.name(), null, a.parent(), a.shares()));
            }
            for (Node a : accounts.values()) {
                Node parent = a.parent == null ? null : accounts.get(a.parent);
                if (parent == null) {
                    roots.add(a);
                } else {
                    parent.children.add(a);
                }
            }
            for (User u : userList) {
                Node account = accounts.get(u.account());
                if (account == null) {
                    throw new IllegalArgumentException("user " + u.user() + " is in unknown account " + u.account());
                }
                Node node = new Node(u.account(), u.user(), u.account(), u.shares());
                Map<String, Double> byUser = usage.get(u.account());
                Double used = byUser == null ? null : byUser.get(u.user());
                node.usage = used == null ? 0 : Math.max(0, used);
                account.children.add(node);
                userCount++;
            }
            for (Node root : roots) {
                sumUsage(root, 0);
            }
        }

        private double sumUsage(Node node, int depth) {
            node.depth = depth;
            if (!node.isUser()) {
                double sum = 0;
                for (Node child : node.children) {
                    sum += sumUsage(child, depth + 1);
                }
                node.usage = sum;
            }
            return node.usage;
        }

        Result run() {
            nextRank = userCount;
            level(roots);
            return new Result(List.copyOf(lines), factors);
        }

        /** Computes each sibling's level fair share, within its own set of siblings. */
        private static void levelFairShares(List<Node> siblings) {
            long shares = 0;
            double usage = 0;
            for (Node n : siblings) {
                shares += n.shares;
                usage += n.usage;
            }
            for (Node n : siblings) {
                n.normShares = shares == 0 ? 0 : (double) n.shares / shares;
                n.effectiveUsage = usage == 0 ? 0 : n.usage / usage;
                n.levelFs = n.normShares == 0 ? 0
                        : n.effectiveUsage == 0 ? Double.POSITIVE_INFINITY : n.normShares / n.effectiveUsage;
                if (Double.isNaN(n.levelFs)) {
                    // Usage beyond what a double holds (infinite over infinite): ranked last, not NaN.
                    n.levelFs = 0;
                }
            }
        }

        /** Ranks one level (possibly the merged children of tied accounts), highest level fair share first. */
        private void level(List<Node> nodes) {
            if (nodes.isEmpty()) {
                return;
            }
            // Level FS is computed among true siblings, even when tied accounts' children are merged.
            Map<String, List<Node>> byParent = new LinkedHashMap<>();
            for (Node n : nodes) {
                byParent.computeIfAbsent(String.valueOf(n.parent), p -> new ArrayList<>()).add(n);
            }
            byParent.values().forEach(Walk::levelFairShares);
            List<Node> sorted = new ArrayList<>(nodes);
            sorted.sort(Comparator.comparingDouble((Node n) -> n.levelFs).reversed()
                    .thenComparing(n -> n.isUser() ? 1 : 0)
                    .thenComparing(n -> n.account)
                    .thenComparing(n -> n.user == null ? "" : n.user));
            int i = 0;
            while (i < sorted.size()) {
                // At least one node a round, and ties by Double.compare: NaN == NaN is false, which once left
                // this loop where it was, forever, holding a request thread.
                int j = i + 1;
                while (j < sorted.size() && Double.compare(sorted.get(j).levelFs, sorted.get(i).levelFs) == 0) {
                    j++;
                }
                List<Node> tied = sorted.subList(i, j);
                int rank = nextRank;
                int usersTied = 0;
                List<Node> mergedChildren = new ArrayList<>();
                for (Node n : tied) {
                    if (n.isUser()) {
                        usersTied++;
                        double factor = userCount == 0 ? 0 : (double) rank / userCount;
                        factors.computeIfAbsent(n.account, a -> new HashMap<>()).put(n.user, factor);
                        lines.add(line(n, factor));
                    }
                }
                nextRank -= usersTied;
                for (Node n : tied) {
                    if (!n.isUser()) {
                        lines.add(line(n, Double.NaN));
                        mergedChildren.addAll(n.children);
                    }
                }
                level(mergedChildren);
                i = j;
            }
        }

        private static Line line(Node n, double factor) {
            return new Line(n.account, n.user, n.isUser() ? n.account : n.parent, n.depth, n.shares, n.normShares,
                    n.usage, n.effectiveUsage, n.levelFs, factor);
        }
    }

    /** Usage decayed over {@code elapsedSeconds} with a half-life (Slurm's PriorityDecayHalfLife); 0 disables decay. */
    public static double decay(double usage, long elapsedSeconds, long halfLifeSeconds) {
        if (halfLifeSeconds <= 0 || elapsedSeconds <= 0) {
            return usage;
        }
        return usage * Math.pow(0.5, (double) elapsedSeconds / halfLifeSeconds);
    }
}
