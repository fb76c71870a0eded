package io.gantry.security;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.api.Problems;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.tags.Tag;

@RestController
@RequestMapping("/api/v1/auth")
@Tag(name = "auth", description = "Sign in and find out who you are")
class AuthController {

    private final UserService users;
    private final AccountDirectory accounts;
    private final TokenIssuer tokens;
    private final SecurityProperties properties;
    private final SignInThrottle throttle;
    private final PasswordChecks passwordChecks;

    AuthController(UserService users, TokenIssuer tokens, SecurityProperties properties, AccountDirectory accounts,
            SignInThrottle throttle, PasswordChecks passwordChecks) {
        this.users = users;
        this.accounts = accounts;
        this.tokens = tokens;
        this.properties = properties;
        this.throttle = throttle;
        this.passwordChecks = passwordChecks;
    }

    record TokenRequest(
            // No user has a longer name or password (UserService.USERNAME, MAX_PASSWORD_BYTES).
            @NotBlank @Size(min = 1, max = 32) String username,
            @NotBlank @Size(min = 1, max = 72) @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String password,
            @Positive @Schema(description = "Defaults to gantry.security.default-token-lifetime (12 h); at most "
                    + "gantry.security.max-token-lifetime") Long lifetimeSeconds) {
    }

    record TokenResponse(String token, @Schema(allowableValues = "Bearer") String tokenType, Instant expiresAt) {
    }

    record RevokeRequest(@Size(max = 32) @Schema(description = "Whose tokens to revoke (ADMIN only when not "
            + "yourself); defaults to the caller") String user) {
    }

    record Whoami(String username, List<Role> roles,
            @Schema(description = "Accounts the user may charge jobs to") List<String> accounts,
            @Schema(description = "Accounts the user coordinates: they manage the accounts and associations below "
                    + "each (see /accounts/{name}/coordinators)") List<String> coordinatorOf,
            @Schema(description = "The account a job that names none is charged to: the user's default account when "
                    + "they have an association with it, else the first of accounts; null without any account")
            String defaultAccount) {
    }

    @PostMapping("/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    @SecurityRequirements
    @Operation(operationId = "createToken", summary = "Sign in: exchange a username and password for a bearer token")
    @ApiResponse(responseCode = "201", description = "The token; send it as Authorization: Bearer <token>")
    @ApiResponse(responseCode = "401", description = "Unknown user, wrong password or disabled user")
    @ApiResponse(responseCode = "429", description = "Too many failed sign-ins for this username or client "
            + "address: retry after Retry-After seconds (gantry.security.sign-in.*)",
            headers = @Header(name = HttpHeaders.RETRY_AFTER, description = "Seconds to wait",
                    schema = @Schema(type = "integer")))
    @ApiResponse(responseCode = "503", description = "Too many sign-ins are being checked at once: retry after "
            + "Retry-After seconds", headers = @Header(name = HttpHeaders.RETRY_AFTER, description = "Seconds to wait",
                    schema = @Schema(type = "integer")))
    TokenResponse createToken(@Valid @RequestBody TokenRequest request, HttpServletRequest http) {
        Duration lifetime = properties.defaultTokenLifetime();
        if (request.lifetimeSeconds() != null) {
            lifetime = Duration.ofSeconds(request.lifetimeSeconds());
            if (lifetime.compareTo(properties.maxTokenLifetime()) > 0) {
                throw GantryException.badRequest("lifetimeSeconds",
                        "must be at most " + properties.maxTokenLifetime().toSeconds());
            }
        }
        UserService.SignedIn signedIn = signIn(request.username(), request.password(), http.getRemoteAddr());
        TokenIssuer.IssuedToken token = tokens.issue(signedIn.user(), signedIn.tokenEpoch(), lifetime);
        return new TokenResponse(token.token(), "Bearer", token.expiresAt());
    }

    /** Throttled, and at most a few password checks at once (see {@link SignInThrottle}, {@link PasswordChecks}). */
    private UserService.SignedIn signIn(String username, String password, String address) {
        throttle.admit(username, address);
        UserService.SignedIn signedIn;
        try {
            signedIn = passwordChecks.run(() -> users.authenticate(username, password));
        } catch (GantryException e) {
            if (e.type() == ProblemType.UNAUTHENTICATED) {
                throttle.failed(username, address);
            }
            throw e;
        }
        throttle.succeeded(username);
        return signedIn;
    }

    @PostMapping("/tokens/revoke")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "revokeTokens", summary = "Revoke every token issued to you (or, as ADMIN, to any user) "
            + "so far; signing in again gives a working one",
            description = "Job credentials (GANTRY_JOB_TOKEN) end with their job and are not affected. Other "
                    + "controllers refuse the revoked tokens within gantry.security.user-cache-ttl.")
    @ApiResponse(responseCode = "204", description = "Revoked: the user's older tokens are now answered 401")
    @ApiResponse(responseCode = "403", description = "Another user's tokens, and you are not an ADMIN; or the caller "
            + "presented a job credential")
    @ApiResponse(responseCode = "404", description = "No such user")
    void revokeTokens(
            @Parameter(description = "Whose tokens to revoke; the same as the body's user")
            @RequestParam(name = "user", required = false) @Size(max = 32) String userParameter,
            @Valid @RequestBody(required = false) RevokeRequest body, CurrentUser caller) {
        String fromBody = body == null ? null : blankToNull(body.user());
        String fromQuery = blankToNull(userParameter);
        if (fromBody != null && fromQuery != null && !fromBody.equals(fromQuery)) {
            throw GantryException.badRequest("user", "names '" + fromQuery + "' in the query and '" + fromBody
                    + "' in the body; name one user");
        }
        if (CurrentUser.credentialJob().isPresent()) {
            // Anything a job runs can read its credential: it must not sign its owner out everywhere.
            throw new GantryException(ProblemType.FORBIDDEN, "A job credential (GANTRY_JOB_TOKEN) cannot revoke "
                    + "tokens; sign in as the user to revoke them");
        }
        String user = fromBody != null ? fromBody : fromQuery != null ? fromQuery : caller.username();
        if (!user.equals(caller.username()) && !caller.isAdmin()) {
            throw new GantryException(ProblemType.FORBIDDEN, "Only an ADMIN may revoke another user's tokens");
        }
        users.revokeTokens(user);
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Refused sign-ins carry Retry-After, which the shared problem handler does not write. */
    @ExceptionHandler(SignInRefused.class)
    ResponseEntity<ProblemDetail> refused(SignInRefused e) {
        ProblemDetail problem = Problems.of(e.type(), e.getMessage(), e.errors());
        return ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds())).body(problem);
    }

    @GetMapping("/whoami")
    @Operation(operationId = "getWhoami", summary = "The caller's username, roles and accounts")
    Whoami getWhoami(CurrentUser caller) {
        List<String> mine = accounts.accountsOf(caller.username());
        // As a submission that names no account is charged (io.gantry.accounting's Charges).
        String defaultAccount = users.find(caller.username()).map(User::defaultAccount).filter(mine::contains)
                .orElse(mine.isEmpty() ? null : mine.get(0));
        return new Whoami(caller.username(), caller.roles().stream().sorted().toList(), mine,
                accounts.coordinatorOf(caller.username()), defaultAccount);
    }
}
