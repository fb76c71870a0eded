package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

class CurrentUserTests {

    @Test
    void rolesIncludeTheOnesBelowThem() {
        var admin = new CurrentUser("root", Set.of(Role.ADMIN));
        var operator = new CurrentUser("op", Set.of(Role.OPERATOR));
        var user = new CurrentUser("alice", Set.of(Role.USER));

        assertThat(admin.isOperator()).isTrue();
        assertThat(admin.has(Role.USER)).isTrue();
        assertThat(operator.isOperator()).isTrue();
        assertThat(operator.isAdmin()).isFalse();
        assertThat(user.isOperator()).isFalse();
        assertThat(user.has(Role.USER)).isTrue();
    }

    @Test
    void usersActForThemselvesAndOperatorsForEveryone() {
        var user = new CurrentUser("alice", Set.of(Role.USER));
        var operator = new CurrentUser("op", Set.of(Role.OPERATOR));

        assertThat(user.mayActFor("alice")).isTrue();
        assertThat(user.mayActFor("bob")).isFalse();
        assertThat(operator.mayActFor("bob")).isTrue();
    }
}
