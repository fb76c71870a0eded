package io.gantry.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.gantry.cli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code gantry login}: trades a user name and password for a token and keeps it in
 * {@code ~/.config/gantry/token}, readable by its owner only, for the other commands.
 */
final class Login {

    static final List<Option> OPTIONS = List.of(new Option("user", 'u', true), new Option("password-stdin", '\0', false),
            new Option("url", '\0', true), new Option("lifetime", '\0', true));

    private final CliEnvironment env;

    Login(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) throws ControllerApi.ApiException {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        CliEnvironment target = env;
        if (line.has("url")) {
            write(env.configDir().resolve("config"), "url=" + line.value("url") + "\n");
            Map<String, String> withUrl = new LinkedHashMap<>(env.env());
            withUrl.put(CliEnvironment.URL_ENV, line.value("url"));
            target = new CliEnvironment(withUrl, env.home(), env.cwd(), env.in(), env.out(), env.err(), env.clock(),
                    env.zone(), env.api());
        }
        String user = line.value("user");
        Console console = System.console();
        if (user == null) {
            user = env.env().getOrDefault("USER", System.getProperty("user.name"));
        }
        String password;
        try {
            if (line.has("password-stdin")) {
                password = new BufferedReader(new InputStreamReader(env.in(), StandardCharsets.UTF_8)).readLine();
            } else if (console != null) {
                char[] typed = console.readPassword("Password for %s: ", user);
                password = typed == null ? null : new String(typed);
            } else {
                env.err().println("login: error: no terminal to ask for the password: use --password-stdin");
                return 1;
            }
        } catch (IOException e) {
            env.err().println("login: error: cannot read the password: " + e.getMessage());
            return 1;
        }
        if (password == null || password.isEmpty()) {
            env.err().println("login: error: empty password");
            return 1;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("username", user);
        body.put("password", password);
        if (line.has("lifetime")) {
            body.put("lifetimeSeconds", TimeLimit.seconds(line.value("lifetime")));
        }
        JsonNode answer;
        try {
            answer = target.api().get().post("/api/v1/auth/tokens", body);
        } catch (ControllerApi.ApiException e) {
            env.err().println("login: error: " + (e.status() == 401 ? "wrong user name or password" : e.getMessage()));
            return 1;
        }
        write(env.tokenFile(), answer.path("token").asString() + "\n");
        env.out().println("Logged in as " + user + " (token valid until " + answer.path("expiresAt").asString()
                + ", kept in " + env.tokenFile() + ")");
        return 0;
    }

    /**
     * Writes a file only its owner can read, in a directory only its owner can enter. A directory or
     * file made before (by hand, by mkdir under umask 022, by an older gantry) is closed too: the
     * token is a password, and a 0755 directory lets every user list it and read a loose file in it.
     */
    private static void write(Path file, String text) {
        try {
            Path dir = file.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            // Never through a link: the token goes into this file, not wherever a link would send it.
            if (Files.isSymbolicLink(file)) {
                throw new IllegalArgumentException("cannot write " + file + ": it is a symbolic link; remove it");
            }
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(PosixFilePermissions.fromString("rw-------"));
            Files.writeString(file, text, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write " + file + ": " + e.getMessage());
        }
    }
}
