package io.gantry.security;

import java.security.SecureRandom;

import javax.crypto.SecretKey;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.access.hierarchicalroles.RoleHierarchy;
import org.springframework.security.access.hierarchicalroles.RoleHierarchyImpl;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.context.SecurityContextHolderFilter;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.api.GantryProperties;
import tools.jackson.databind.json.JsonMapper;

/**
 * Stateless bearer-token security: every call under {@code /api/} needs a token signed by this
 * controller; health, the OpenAPI document, Swagger UI, the dashboard's static files and token
 * issuing are public, and so is {@code /metrics} unless {@link MetricsAccess} says otherwise. Method security is on, so any controller can say
 * {@code @PreAuthorize("hasRole('OPERATOR')")}; roles form the hierarchy ADMIN > OPERATOR > USER.
 */
@Configuration(proxyBeanMethods = false)
@EnableMethodSecurity
class SecurityConfiguration {

    /** Distinct tokens whose signature is remembered as checked (about 1 KiB each). */
    private static final int VERIFIED_TOKENS = 10_000;

    static final String TOKENS_PATH = "/api/v1/auth/tokens";

    /**
     * The agent protocol's calls carry a join token or a node credential, not a user's token: the
     * agents' controller checks those itself, so this chain lets them through to it untouched.
     */
    @Bean
    @Order(1)
    SecurityFilterChain agentProtocolSecurity(HttpSecurity http) throws Exception {
        http
                .securityMatcher(AgentProtocol.REGISTER, AgentProtocol.BASE + "/*/poll", AgentProtocol.BASE + "/*/reports",
                        AgentProtocol.BASE + "/*/step-reports", AgentProtocol.BASE + "/*/output",
                        AgentProtocol.BASE + "/*/step-stats",
                        AgentProtocol.BASE + "/gantry.jar")
                .csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .anonymous(AbstractHttpConfigurer::disable)
                .authorizeHttpRequests(a -> a.anyRequest().permitAll());
        return http.build();
    }

    @Bean
    @Order(2)
    SecurityFilterChain apiSecurity(HttpSecurity http, ActiveUsers activeUsers,
            JobCredentialCheck jobCredentials, JsonMapper json, Environment environment) throws Exception {
        ProblemResponses problems = new ProblemResponses(json);
        boolean metricsNeedToken = MetricsAccess.tokenRequired(environment);
        http
                // No cookies or sessions: a browser cannot be tricked into sending a bearer token.
                .csrf(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .requestCache(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .authorizeHttpRequests(a -> {
                    a.requestMatchers("/actuator/health", "/actuator/health/**").permitAll();
                    // Public so that Prometheus scrapes without a token, unless user data is private
                    // (MetricsAccess): per-account and per-user job counts are in it.
                    if (metricsNeedToken) {
                        a.requestMatchers(MetricsAccess.PATHS).hasRole(Role.OPERATOR.name());
                    } else {
                        a.requestMatchers(MetricsAccess.PATHS).permitAll();
                    }
                    a.requestMatchers("/actuator/**").hasRole(Role.ADMIN.name())
                            .requestMatchers("/v3/api-docs", "/v3/api-docs/**", "/v3/api-docs.yaml",
                                    "/swagger-ui.html", "/swagger-ui/**").permitAll()
                            .requestMatchers(HttpMethod.POST, TOKENS_PATH).permitAll()
                            .requestMatchers("/api/**").authenticated()
                            // The dashboard: static files that call the API with a token.
                            .anyRequest().permitAll();
                })
                .oauth2ResourceServer(o -> o
                        .bearerTokenResolver(bearerTokens())
                        .jwt(j -> j.jwtAuthenticationConverter(new TokenAuthentication(activeUsers, jobCredentials)))
                        .authenticationEntryPoint(problems)
                        .accessDeniedHandler(problems))
                .exceptionHandling(e -> e.authenticationEntryPoint(problems).accessDeniedHandler(problems))
                .addFilterAfter(new RequestLog(), SecurityContextHolderFilter.class);
        return http.build();
    }

    /** Signing in must work even when the client still sends its old, expired token. */
    private static BearerTokenResolver bearerTokens() {
        return (HttpServletRequest request) -> HttpMethod.POST.matches(request.getMethod())
                && TOKENS_PATH.equals(request.getRequestURI()) ? null : RequestCharacters.bearerToken(request);
    }

    /** Spring Security's strict firewall, its character checks cheaper (see {@link RequestCharacters}). */
    @Bean
    HttpFirewall httpFirewall() {
        return RequestCharacters.firewall();
    }

    @Bean
    static RoleHierarchy roleHierarchy() {
        return RoleHierarchyImpl.withDefaultRolePrefix()
                .role(Role.ADMIN.name()).implies(Role.OPERATOR.name())
                .role(Role.OPERATOR.name()).implies(Role.USER.name())
                .build();
    }

    /** BCrypt, stored with its {@code {bcrypt}} prefix so a later switch of algorithm keeps old hashes valid. */
    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder();
    }

    @Bean
    SecretKey jwtSigningKey(SecurityProperties properties, GantryProperties gantry) {
        return JwtSecret.resolve(properties.jwtSecret(), gantry.dataDir(), new SecureRandom());
    }

    @Bean
    JwtEncoder jwtEncoder(SecretKey jwtSigningKey) {
        return NimbusJwtEncoder.withSecretKey(jwtSigningKey).algorithm(MacAlgorithm.HS256).build();
    }

    @Bean
    JwtDecoder jwtDecoder(SecretKey jwtSigningKey) {
        NimbusJwtDecoder decoder = NimbusJwtDecoder.withSecretKey(jwtSigningKey).macAlgorithm(MacAlgorithm.HS256).build();
        // Expiry (with the default 60 s clock skew) and our issuer.
        OAuth2TokenValidator<Jwt> validator = JwtValidators.createDefaultWithIssuer(TokenIssuer.ISSUER);
        decoder.setJwtValidator(validator);
        return new VerifiedTokens(decoder, validator, VERIFIED_TOKENS);
    }

    /**
     * No observation around each of Spring Security's filters. Turning them off by property still
     * wrapped every filter in a decorator that asked, per request and filter, whether to observe:
     * under 16 submitting clients that cost more CPU than the submission itself. Request metrics
     * (http.server.requests) stay.
     */
    @Bean
    static SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }
}
