package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.ArgumentCaptor;

import io.gantry.secrets.OwnerOnlyFiles;

class BootstrapAdminTests {

    @TempDir
    Path dataDir;

    private final UserService users = mock(UserService.class);

    @Test
    void anEmptyStoreGetsAnAdminWithARandomPasswordWrittenOwnerOnly() throws IOException {
        when(users.anyUsers()).thenReturn(false);

        assertThat(bootstrap(null).run()).isTrue();

        UserService.NewUser created = createdUser();
        Path file = dataDir.resolve(BootstrapAdmin.PASSWORD_FILE);
        assertThat(created.username()).isEqualTo("admin");
        assertThat(created.roles()).containsExactly(Role.ADMIN);
        assertThat(created.defaultAccount()).as("API.md: the bootstrap admin's default account").isEqualTo("root");
        assertThat(created.password()).hasSizeGreaterThanOrEqualTo(20);
        assertThat(Files.readString(file).strip()).isEqualTo(created.password());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void twoStartsDrawDifferentPasswords() {
        when(users.anyUsers()).thenReturn(false);
        bootstrap(null).run();
        String first = createdUser().password();

        Path otherDir = dataDir.resolve("other");
        new BootstrapAdmin(users, null, otherDir, new SecureRandom()).run();
        ArgumentCaptor<UserService.NewUser> captor = ArgumentCaptor.forClass(UserService.NewUser.class);
        verify(users, org.mockito.Mockito.times(2)).create(captor.capture());

        assertThat(captor.getAllValues().get(1).password()).isNotEqualTo(first);
    }

    @Test
    void aConfiguredPasswordIsUsedAndNoFileIsWritten() {
        when(users.anyUsers()).thenReturn(false);

        bootstrap("configured-password").run();

        assertThat(createdUser().password()).isEqualTo("configured-password");
        assertThat(dataDir.resolve(BootstrapAdmin.PASSWORD_FILE)).doesNotExist();
    }

    @Test
    void nothingHappensWhenTheStoreHasUsers() {
        when(users.anyUsers()).thenReturn(true);

        assertThat(bootstrap(null).run()).isFalse();

        verify(users, never()).create(any());
        assertThat(dataDir.resolve(BootstrapAdmin.PASSWORD_FILE)).doesNotExist();
    }

    @Test
    void anExistingPasswordFileIsNeitherOverwrittenNorRecreatedWhenUsersExist() throws IOException {
        Path file = dataDir.resolve(BootstrapAdmin.PASSWORD_FILE);
        OwnerOnlyFiles.create(file, "kept-password-123\n");
        when(users.anyUsers()).thenReturn(true);

        bootstrap(null).run();

        assertThat(Files.readString(file)).isEqualTo("kept-password-123\n");
        verify(users, never()).create(any());
    }

    @Test
    void aWipedStoreReusesThePasswordInTheExistingFile() throws IOException {
        Path file = dataDir.resolve(BootstrapAdmin.PASSWORD_FILE);
        OwnerOnlyFiles.create(file, "kept-password-123\n");
        when(users.anyUsers()).thenReturn(false);

        bootstrap(null).run();

        assertThat(createdUser().password()).isEqualTo("kept-password-123");
        assertThat(Files.readString(file)).isEqualTo("kept-password-123\n");
    }

    @Test
    void losingTheRaceToAnotherControllerIsNotAnError() {
        when(users.anyUsers()).thenReturn(false);
        when(users.create(any())).thenThrow(io.gantry.api.GantryException.conflict("User 'admin' already exists"));

        assertThat(bootstrap("configured-password").run()).isFalse();
    }

    private BootstrapAdmin bootstrap(String configuredPassword) {
        return new BootstrapAdmin(users, configuredPassword, dataDir, new SecureRandom());
    }

    private UserService.NewUser createdUser() {
        ArgumentCaptor<UserService.NewUser> captor = ArgumentCaptor.forClass(UserService.NewUser.class);
        verify(users).create(captor.capture());
        assertThat(captor.getValue().roles()).isEqualTo(Set.of(Role.ADMIN));
        return captor.getValue();
    }
}
