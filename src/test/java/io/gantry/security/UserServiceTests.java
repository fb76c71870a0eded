package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;

class UserServiceTests {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final UserRepository repository = mock(UserRepository.class);
    private final PasswordEncoder passwords = spy(PasswordEncoderFactories.createDelegatingPasswordEncoder());
    private final ApplicationEventPublisher events = mock(ApplicationEventPublisher.class);
    private final UserService users = new UserService(repository, passwords, events, mock(AccountDirectory.class),
            Clock.fixed(NOW, ZoneOffset.UTC), mock(UserAudit.class));

    @Test
    void anUnknownUserCostsABcryptCheckAsExpensiveAsARealOne() {
        when(repository.findByUsername("nobody")).thenReturn(Optional.empty());
        String real = passwords.encode("a-real-password");

        assertThatThrownBy(() -> users.authenticate("nobody", "guess-guess"))
                .isInstanceOfSatisfying(GantryException.class,
                        e -> assertThat(e.type()).isEqualTo(ProblemType.UNAUTHENTICATED));

        ArgumentCaptor<String> hash = ArgumentCaptor.forClass(String.class);
        verify(passwords).matches(eq("guess-guess"), hash.capture());
        // {bcrypt}$2a$10$...: the same algorithm and cost as users' own hashes.
        assertThat(hash.getValue()).startsWith("{bcrypt}$2a$").hasSize(real.length());
        assertThat(hash.getValue().substring(0, 15)).isEqualTo(real.substring(0, 15));
        assertThat(passwords.matches("guess-guess", hash.getValue())).isFalse();
        assertThat(passwords.upgradeEncoding(hash.getValue())).as("the encoder would not re-hash the decoy").isFalse();
    }

    @Test
    void aPasswordLongerThanBcryptReadsIsAWrongPasswordNotAnError() {
        user();

        assertThatThrownBy(() -> users.authenticate("alice", "\u00e9".repeat(72)))
                .isInstanceOfSatisfying(GantryException.class,
                        e -> assertThat(e.type()).isEqualTo(ProblemType.UNAUTHENTICATED));
    }

    @Test
    void aNewPasswordOtherRolesDisablingAndRevokingEachStartANewTokenEpoch() {
        UserEntity alice = user();
        long epoch = alice.tokenEpoch();

        users.update("alice", new UserService.UserChange("a-new-password", null, null, null), "admin");
        assertThat(alice.tokenEpoch()).isNotEqualTo(epoch);

        epoch = alice.tokenEpoch();
        users.update("alice", new UserService.UserChange(null, EnumSet.of(Role.OPERATOR), null, null), "admin");
        assertThat(alice.tokenEpoch()).isNotEqualTo(epoch);

        epoch = alice.tokenEpoch();
        users.update("alice", new UserService.UserChange(null, null, false, null), "admin");
        assertThat(alice.tokenEpoch()).isNotEqualTo(epoch);

        epoch = alice.tokenEpoch();
        users.revokeTokens("alice");
        assertThat(alice.tokenEpoch()).isNotEqualTo(epoch).isNotZero();
        verify(events, times(4)).publishEvent(new UserChanged("alice", false));
    }

    @Test
    void theSameRolesEnablingOrADefaultAccountKeepTheTokens() {
        UserEntity alice = user();
        long epoch = alice.tokenEpoch();

        users.update("alice", new UserService.UserChange(null, EnumSet.of(Role.USER), true, "root"), "admin");

        assertThat(alice.tokenEpoch()).isEqualTo(epoch);
    }

    @Test
    void revokingTheTokensOfAnUnknownUserIs404() {
        when(repository.findByUsername(anyString())).thenReturn(Optional.empty());

        assertThatThrownBy(() -> users.revokeTokens("ghost")).isInstanceOfSatisfying(GantryException.class,
                e -> assertThat(e.type()).isEqualTo(ProblemType.NOT_FOUND));
    }

    @Test
    void aUserCreatedAgainUnderTheSameNameStartsAnotherEpoch() {
        when(repository.existsByUsername("bob")).thenReturn(false);
        ArgumentCaptor<UserEntity> saved = ArgumentCaptor.forClass(UserEntity.class);
        when(repository.saveAndFlush(saved.capture())).thenAnswer(i -> i.getArgument(0));

        users.create(new UserService.NewUser("bob", "bob-password", null, null));
        users.create(new UserService.NewUser("bob", "bob-password", null, null));

        assertThat(saved.getAllValues()).extracting(UserEntity::tokenEpoch).doesNotHaveDuplicates()
                .doesNotContain(TokenEpochs.NONE);
    }

    private UserEntity user() {
        UserEntity alice = new UserEntity("alice", passwords.encode("alice-password"), EnumSet.of(Role.USER), null,
                TokenEpochs.next(), NOW);
        when(repository.findByUsername("alice")).thenReturn(Optional.of(alice));
        when(repository.saveAndFlush(any())).thenAnswer(i -> i.getArgument(0));
        return alice;
    }
}
