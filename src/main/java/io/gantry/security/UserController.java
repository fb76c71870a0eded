package io.gantry.security;

import java.net.URI;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import io.gantry.api.GantryException;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

@RestController
@RequestMapping("/api/v1/users")
@PreAuthorize("hasRole('ADMIN')")
@Tag(name = "users", description = "Who may sign in, and with which roles (ADMIN)")
class UserController {

    private final UserService users;

    UserController(UserService users) {
        this.users = users;
    }

    record CreateUserRequest(
            @NotNull @Pattern(regexp = "[a-z_][a-z0-9_.-]{0,31}") String username,
            @NotNull @Size(min = 8, max = 72) @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String password,
            @ArraySchema(schema = @Schema(allowableValues = {"USER", "OPERATOR", "ADMIN"}),
                    arraySchema = @Schema(description = "Defaults to [USER]")) List<String> roles,
            @Size(max = 64) String defaultAccount) {
    }

    record UpdateUserRequest(
            @Size(min = 8, max = 72) @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String password,
            @ArraySchema(schema = @Schema(allowableValues = {"USER", "OPERATOR", "ADMIN"})) List<String> roles,
            Boolean enabled,
            @Size(max = 64) String defaultAccount) {
    }

    record UserResponse(String username, List<Role> roles, boolean enabled, String defaultAccount,
            Instant createdAt, Instant updatedAt) {

        static UserResponse of(User user) {
            return new UserResponse(user.username(), user.roles().stream().sorted().toList(), user.enabled(),
                    user.defaultAccount(), user.createdAt(), user.updatedAt());
        }
    }

    @GetMapping
    @Operation(operationId = "listUsers", summary = "List users, by username")
    PageResponse<UserResponse> listUsers(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size) {
        PageResponse<User> result = users.list(PageRequest.of(page, size));
        return new PageResponse<>(result.items().stream().map(UserResponse::of).toList(), result.page(),
                result.size(), result.total());
    }

    @GetMapping("/{username}")
    @Operation(operationId = "getUser", summary = "One user")
    UserResponse getUser(@PathVariable String username) {
        return UserResponse.of(users.get(username));
    }

    @PostMapping
    @Operation(operationId = "createUser", summary = "Create a user")
    @ApiResponse(responseCode = "201", description = "Created; Location names the new user")
    @ApiResponse(responseCode = "409", description = "A user with this username exists")
    ResponseEntity<UserResponse> createUser(@Valid @RequestBody CreateUserRequest request) {
        User user = users.create(new UserService.NewUser(request.username(), request.password(),
                roles(request.roles()), request.defaultAccount()));
        URI location = ServletUriComponentsBuilder.fromCurrentRequest().path("/{username}")
                .buildAndExpand(user.username()).toUri();
        return ResponseEntity.created(location).body(UserResponse.of(user));
    }

    @PatchMapping("/{username}")
    @Operation(operationId = "updateUser", summary = "Change a user's password, roles, enabled flag or default account")
    @ApiResponse(responseCode = "200", description = "The user as changed")
    @ApiResponse(responseCode = "409", description = "The change would leave no enabled ADMIN, or disable yourself")
    UserResponse updateUser(@PathVariable String username, @Valid @RequestBody UpdateUserRequest request,
            CurrentUser caller) {
        Set<Role> roles = request.roles() == null ? null : roles(request.roles());
        return UserResponse.of(users.update(username, new UserService.UserChange(request.password(), roles,
                request.enabled(), request.defaultAccount()), caller.username()));
    }

    @DeleteMapping("/{username}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "deleteUser", summary = "Delete a user (not yourself, not the last ADMIN)")
    @ApiResponse(responseCode = "204", description = "Deleted")
    @ApiResponse(responseCode = "409", description = "The user is you, or the last enabled ADMIN")
    void deleteUser(@PathVariable String username, CurrentUser caller) {
        users.delete(username, caller.username());
    }

    /** Role names as sent; an unknown one is a 400 naming it, not a JSON parse error. */
    private static Set<Role> roles(List<String> names) {
        EnumSet<Role> roles = EnumSet.noneOf(Role.class);
        if (names == null) {
            return roles;
        }
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            int index = i;
            roles.add(Role.parse(name).orElseThrow(() -> GantryException.badRequest("roles[" + index + "]",
                    "unknown role '" + name + "'; use USER, OPERATOR or ADMIN")));
        }
        return roles;
    }
}
