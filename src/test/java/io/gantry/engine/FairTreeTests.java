package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.engine.FairTree.Account;
import io.gantry.engine.FairTree.Line;
import io.gantry.engine.FairTree.User;

class FairTreeTests {

    private static final List<Account> TWO_ACCOUNTS = List.of(new Account("root", null, 1),
            new Account("a", "root", 3), new Account("b", "root", 1));
    private static final List<User> ONE_USER_EACH = List.of(new User("a", "ua", 1), new User("b", "ub", 1));

    @Test
    void usageBeyondWhatADoubleHoldsStillGivesEveryUserAFactor() {
        // Two accounts whose usage sums to infinity: each one's effective usage was infinity over infinity (NaN),
        // and ranking NaN never moved past it, holding the request (GET /fairshare, /quotas, /work) forever.
        FairTree.Result r = FairTree.compute(TWO_ACCOUNTS, ONE_USER_EACH,
                Map.of("a", Map.of("ua", Double.MAX_VALUE), "b", Map.of("ub", Double.POSITIVE_INFINITY)));
        assertThat(r.factor("a", "ua")).isBetween(0.0, 1.0);
        assertThat(r.factor("b", "ub")).isBetween(0.0, 1.0);
        assertThat(r.lines()).allSatisfy(l -> assertThat(l.levelFairShare()).isNotNaN());
    }

    @Test
    void withoutUsageEveryoneTiesAtTheTop() {
        FairTree.Result r = FairTree.compute(TWO_ACCOUNTS, ONE_USER_EACH, Map.of());
        assertThat(r.factor("a", "ua")).isEqualTo(1.0);
        assertThat(r.factor("b", "ub")).isEqualTo(1.0);
    }

    @Test
    void theAccountFurthestBelowItsSharesRanksFirst() {
        // a holds 3/4 of the shares and used half: LF 1.5; b holds 1/4 and used half: LF 0.5.
        FairTree.Result r = FairTree.compute(TWO_ACCOUNTS, ONE_USER_EACH,
                Map.of("a", Map.of("ua", 100.0), "b", Map.of("ub", 100.0)));
        assertThat(r.factor("a", "ua")).isEqualTo(1.0);
        assertThat(r.factor("b", "ub")).isEqualTo(0.5);
        Line a = r.lines().stream().filter(l -> l.user() == null && l.account().equals("a")).findFirst().orElseThrow();
        assertThat(a.normShares()).isEqualTo(0.75);
        assertThat(a.effectiveUsage()).isEqualTo(0.5);
        assertThat(a.levelFairShare()).isCloseTo(1.5, within(1e-12));
        assertThat(a.rawUsage()).isEqualTo(100.0);

        // Once a used more than three times b, b comes first.
        FairTree.Result later = FairTree.compute(TWO_ACCOUNTS, ONE_USER_EACH,
                Map.of("a", Map.of("ua", 400.0), "b", Map.of("ub", 100.0)));
        assertThat(later.factor("b", "ub")).isEqualTo(1.0);
        assertThat(later.factor("a", "ua")).isEqualTo(0.5);
    }

    @Test
    void aUserOfAnAccountUnderItsSharesOutranksEveryUserOfASiblingOverItsShares() {
        // Fair Tree ranks whole subtrees: every user under "a" (under its shares) comes before every
        // user under "b", however the users compare with each other inside their accounts.
        List<Account> accounts = List.of(new Account("root", null, 1), new Account("a", "root", 1),
                new Account("b", "root", 1), new Account("a1", "a", 1));
        List<User> users = List.of(new User("a1", "heavy", 1), new User("a", "light", 1), new User("b", "idle", 1),
                new User("b", "busy", 1));
        FairTree.Result r = FairTree.compute(accounts, users, Map.of(
                "a1", Map.of("heavy", 90.0), "a", Map.of("light", 10.0), "b", Map.of("busy", 300.0)));
        // Ranks, 4 users: within a, light (LF 0.5/0.1 = 5) before sub-account a1 (0.5/0.9); then b's idle (LF inf) and busy.
        assertThat(r.factor("a", "light")).isEqualTo(1.0);
        assertThat(r.factor("a1", "heavy")).isEqualTo(0.75);
        assertThat(r.factor("b", "idle")).isEqualTo(0.5);
        assertThat(r.factor("b", "busy")).isEqualTo(0.25);
    }

    @Test
    void usersWithEqualLevelFairShareGetTheSameFactor() {
        List<User> users = List.of(new User("a", "u1", 1), new User("a", "u2", 1), new User("b", "u3", 1));
        FairTree.Result r = FairTree.compute(TWO_ACCOUNTS, users,
                Map.of("a", Map.of("u1", 10.0, "u2", 10.0), "b", Map.of("u3", 50.0)));
        assertThat(r.factor("a", "u1")).isEqualTo(1.0);
        assertThat(r.factor("a", "u2")).isEqualTo(1.0);
        assertThat(r.factor("b", "u3")).isCloseTo(1.0 / 3, within(1e-12));
    }

    @Test
    void usageDecaysByHalfAfterOneHalfLife() {
        long week = 7 * 86400;
        assertThat(FairTree.decay(1000, week, week)).isCloseTo(500, within(1e-9));
        assertThat(FairTree.decay(1000, 2 * week, week)).isCloseTo(250, within(1e-9));
        assertThat(FairTree.decay(1000, 3600, 0)).isEqualTo(1000);
    }
}
