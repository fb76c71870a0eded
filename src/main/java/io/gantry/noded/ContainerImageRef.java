package io.gantry.noded;

import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A container image as a user names it, in pyxis's (enroot's) words:
 * {@code [USER@][REGISTRY#]IMAGE[:TAG]} ({@code nvcr.io#nvidia/pytorch:24.05-py3}), Docker's
 * {@code REGISTRY/IMAGE[:TAG][@DIGEST]} (a first component with a dot or a colon, or {@code localhost},
 * is a registry), or an absolute path to an image archive on the node (a {@code docker save} or OCI
 * archive). Without a registry it is Docker Hub's, one-component names under {@code library/}; without
 * a tag, {@code latest}. {@code user} is the registry login pyxis lets a reference name: it picks that
 * login from the owner's credentials file.
 *
 * @param registry host[:port], null for an archive
 * @param repository the image's path in the registry, null for an archive
 * @param tag null when a digest pins it or for an archive
 * @param digest {@code sha256:...} when the reference pins one
 * @param archive an archive on the node, else null
 */
record ContainerImageRef(String user, String registry, String repository, String tag, String digest,
        Path archive) {

    static final String DOCKER_HUB = "docker.io";
    private static final Pattern COMPONENT = Pattern.compile("[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final Pattern REGISTRY = Pattern.compile("[A-Za-z0-9.-]+(?::[0-9]{1,5})?|\\[[0-9A-Fa-f:]+\\](?::[0-9]{1,5})?");
    private static final Pattern USER = Pattern.compile("[^@#/:\\s]+");

    /**
     * Parses a reference as pyxis takes {@code --container-image}.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static ContainerImageRef parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("no image named");
        }
        String s = text.strip();
        if (s.startsWith("/")) {
            Path path = Path.of(s).normalize();
            return new ContainerImageRef(null, null, null, null, null, path);
        }
        if (s.startsWith("docker://")) {
            s = s.substring("docker://".length());
        }
        String user = null;
        String registry = null;
        int hash = s.indexOf('#');
        if (hash >= 0) {
            String left = s.substring(0, hash);
            s = s.substring(hash + 1);
            int at = left.lastIndexOf('@');
            if (at >= 0) {
                user = left.substring(0, at);
                left = left.substring(at + 1);
            }
            registry = left;
            if (!REGISTRY.matcher(registry).matches()) {
                throw new IllegalArgumentException("'" + registry + "' is not a registry (host[:port]) in image "
                        + text);
            }
        } else {
            int at = s.indexOf('@');
            int slash = s.indexOf('/');
            if (at >= 0 && !s.startsWith("sha256:", at + 1) && (slash < 0 || at < slash)) {
                user = s.substring(0, at);
                s = s.substring(at + 1);
            }
        }
        if (user != null && !USER.matcher(user).matches()) {
            throw new IllegalArgumentException("'" + user + "' is not a user name in image " + text);
        }
        String digest = null;
        int at = s.indexOf('@');
        if (at >= 0) {
            digest = s.substring(at + 1);
            s = s.substring(0, at);
            if (!DIGEST.matcher(digest).matches()) {
                throw new IllegalArgumentException("'" + digest + "' is not a sha256 digest in image " + text);
            }
        }
        String tag = null;
        int colon = s.lastIndexOf(':');
        if (colon > s.lastIndexOf('/')) {
            tag = s.substring(colon + 1);
            s = s.substring(0, colon);
            if (!TAG.matcher(tag).matches()) {
                throw new IllegalArgumentException("'" + tag + "' is not a tag in image " + text);
            }
        }
        if (registry == null) {
            int slash = s.indexOf('/');
            String first = slash < 0 ? null : s.substring(0, slash);
            if (first != null && (first.contains(".") || first.contains(":") || first.equals("localhost")
                    || first.startsWith("["))) {
                registry = first;
                s = s.substring(slash + 1);
            } else {
                registry = DOCKER_HUB;
            }
        }
        if (registry.equals("index.docker.io") || registry.equals("registry-1.docker.io")) {
            registry = DOCKER_HUB;
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("no image name in " + text);
        }
        for (String component : s.split("/", -1)) {
            if (!COMPONENT.matcher(component).matches()) {
                throw new IllegalArgumentException("'" + s + "' is not an image name (lower-case letters, digits, "
                        + "separators) in " + text);
            }
        }
        if (registry.equals(DOCKER_HUB) && !s.contains("/")) {
            s = "library/" + s;
        }
        if (tag == null && digest == null) {
            tag = "latest";
        }
        return new ContainerImageRef(user, registry.toLowerCase(Locale.ROOT), s, tag, digest, null);
    }

    boolean isArchive() {
        return archive != null;
    }

    /**
     * Whether the registry is this machine's own: reached over plain HTTP (skopeo's
     * {@code --tls-verify=false}), as a registry on 127.0.0.1 for tests and local mirrors is.
     */
    boolean insecure() {
        if (registry == null) {
            return false;
        }
        String host = registry.startsWith("[") ? registry.substring(0, registry.indexOf(']') + 1)
                : registry.contains(":") ? registry.substring(0, registry.indexOf(':')) : registry;
        return host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]");
    }

    /** What skopeo reads this reference as: {@code docker://registry/repository:tag} (or {@code @digest}). */
    String source() {
        return "docker://" + registry + "/" + repository + (digest != null ? "@" + digest : ":" + tag);
    }

    /** The image at exactly {@code resolved}, for skopeo. */
    String pinned(String resolved) {
        return "docker://" + registry + "/" + repository + "@" + resolved;
    }

    /** The registry name credentials files key their entries with (Docker Hub's under its old URL too). */
    String authKey() {
        return registry;
    }

    @Override
    public String toString() {
        if (archive != null) {
            return archive.toString();
        }
        return registry + "/" + repository + (tag != null ? ":" + tag : "") + (digest != null ? "@" + digest : "");
    }
}
