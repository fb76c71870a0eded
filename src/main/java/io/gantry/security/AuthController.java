package io.gantry.security;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.GantryException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import io.swagger.v3.oas.annotations.tags.Tag;

@RestController
@RequestMapping("/api/v1/auth")
@Tag(name = "auth", description = "Sign in and find out who you are")
class AuthController {

    private final UserService users;
    private final AccountDirectory accounts;
    private final TokenIssuer tokens;
    private final SecurityProperties properties;

    AuthController(UserService users, TokenIssuer tokens, SecurityProperties properties, AccountDirectory accounts) {
        this.users = users;
        this.accounts = accounts;
        this.tokens = tokens;
        this.properties = properties;
    }

    record TokenRequest(
            @NotBlank @Size(max = 64) String username,
            @NotBlank @Size(max = 1024) @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String password,
            @Positive @Schema(description = "Defaults to gantry.security.default-token-lifetime (12 h); at most "
                    + "gantry.security.max-token-lifetime") Long lifetimeSeconds) {
    }

    record TokenResponse(String token, @Schema(allowableValues = "Bearer") String tokenType, Instant expiresAt) {
    }

    record Whoami(String username, List<Role> roles,
            @Schema(description = "Accounts the user may charge jobs to") List<String> accounts) {
    }

    @PostMapping("/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    @SecurityRequirements
    @Operation(operationId = "createToken", summary = "Sign in: exchange a username and password for a bearer token")
    @ApiResponse(responseCode = "201", description = "The token; send it as Authorization: Bearer <token>")
    @ApiResponse(responseCode = "401", description = "Unknown user, wrong password or disabled user")
    TokenResponse createToken(@Valid @RequestBody TokenRequest request) {
        Duration lifetime = properties.defaultTokenLifetime();
        if (request.lifetimeSeconds() != null) {
            lifetime = Duration.ofSeconds(request.lifetimeSeconds());
            if (lifetime.compareTo(properties.maxTokenLifetime()) > 0) {
                throw GantryException.badRequest("lifetimeSeconds",
                        "must be at most " + properties.maxTokenLifetime().toSeconds());
            }
        }
        User user = users.authenticate(request.username(), request.password());
        TokenIssuer.IssuedToken token = tokens.issue(user, lifetime);
        return new TokenResponse(token.token(), "Bearer", token.expiresAt());
    }

    @GetMapping("/whoami")
    @Operation(operationId = "getWhoami", summary = "The caller's username, roles and accounts")
    Whoami getWhoami(CurrentUser caller) {
        return new Whoami(caller.username(), caller.roles().stream().sorted().toList(),
                accounts.accountsOf(caller.username()));
    }
}
