package io.gantry.jobs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.gantry.noded.protocol.ContainerOptions;
import io.gantry.noded.protocol.ContainerSpec;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.InputText;

/**
 * The checks the controller makes of a {@link ContainerSpec} however it came (JSON, sbatch's and srun's
 * flags, read by {@link ContainerOptions}), so a mistake is a 400 naming its field instead of a job that
 * fails on its node.
 *
 * <p>As pyxis: {@code --container-mounts} and {@code --container-env} take comma lists and add up
 * over repeated options; a mount is {@code SRC[:DST[:FLAGS]]} (DST defaults to SRC, flags joined with
 * {@code +}); {@code --container-name=NAME[:auto]}. Unlike pyxis, where a later option contradicts an
 * earlier one ({@code --container-writable} then {@code --container-readonly}) the later wins, because
 * sbatch's command line is passed after the script's directives and must override them; mount flags are
 * {@code ro} or {@code rw} only; mount paths must be absolute (a node has no idea where srun ran).
 */
public final class ContainerFlags {

    private ContainerFlags() {
    }

    /**
     * What is wrong with a container, each with its field ({@code prefix.image}, {@code prefix.mounts[2]}).
     * @param forJob a job's batch script needs an image or a bundle; a step may name only a container
     *     an earlier step of its job made
     */
    public static List<FieldError> check(ContainerSpec spec, String prefix, boolean forJob) {
        List<FieldError> errors = new ArrayList<>();
        if (spec == null) {
            return errors;
        }
        String image = spec.image();
        if (image != null) {
            if (image.isEmpty() || image.length() > ContainerOptions.MAX_IMAGE) {
                errors.add(new FieldError(prefix + ".image", "must be 1 to " + ContainerOptions.MAX_IMAGE + " characters"));
            } else if (image.startsWith("/")) {
                path(prefix + ".image", image, errors);
            } else if (!ContainerOptions.IMAGE.matcher(image).matches()) {
                errors.add(new FieldError(prefix + ".image", "'" + InputText.shown(image) + "' is not an image: "
                        + "write [USER@][REGISTRY#]IMAGE[:TAG] (as pyxis, e.g. nvcr.io#nvidia/pytorch:24.05-py3), "
                        + "REGISTRY/IMAGE:TAG (e.g. 127.0.0.1:5000/test:1), or an absolute path to an image on the "
                        + "node; repository names are lower case"));
            }
        }
        if (spec.bundle() != null) {
            path(prefix + ".bundle", spec.bundle(), errors);
            if (image != null) {
                errors.add(new FieldError(prefix + ".bundle", "a container runs an image (--container-image) or an "
                        + "OCI bundle (--container), not both"));
            }
        }
        if (image == null && spec.bundle() == null) {
            boolean other = spec.mounts() != null || spec.workdir() != null || spec.env() != null
                    || spec.mountHome() != null || spec.remapRoot() != null || spec.writable() != null
                    || spec.entrypoint() != null || spec.name() != null;
            if (forJob && other) {
                errors.add(new FieldError(prefix + ".image", "is needed: a batch script's container starts from an "
                        + "image (--container-image) or an OCI bundle (--container)"
                        + (spec.name() != null ? "; a container name alone only reuses a container an earlier step "
                                + "of the same job made" : "")));
            } else if (spec.name() == null && other) {
                errors.add(new FieldError(prefix + ".image", "is needed: the container options mean nothing without "
                        + "--container-image, --container-name or --container"));
            }
        }
        if (spec.mounts() != null) {
            if (spec.mounts().size() > ContainerOptions.MAX_ITEMS) {
                errors.add(new FieldError(prefix + ".mounts", "lists " + spec.mounts().size() + " mounts; at most "
                        + ContainerOptions.MAX_ITEMS));
            } else {
                for (int i = 0; i < spec.mounts().size(); i++) {
                    mount(prefix + ".mounts[" + i + "]", spec.mounts().get(i), errors);
                }
            }
        }
        if (spec.workdir() != null) {
            path(prefix + ".workdir", spec.workdir(), errors);
        }
        if (spec.name() != null && (spec.name().length() > ContainerOptions.MAX_NAME || !ContainerOptions.NAME.matcher(spec.name()).matches())) {
            errors.add(new FieldError(prefix + ".name", "'" + InputText.shown(spec.name()) + "' is not a container "
                    + "name: 1 to " + ContainerOptions.MAX_NAME + " of A-Z a-z 0-9 _ . -"));
        }
        if (spec.env() != null) {
            if (spec.env().size() > ContainerOptions.MAX_ITEMS) {
                errors.add(new FieldError(prefix + ".env", "lists " + spec.env().size() + " names; at most "
                        + ContainerOptions.MAX_ITEMS));
            } else {
                for (int i = 0; i < spec.env().size(); i++) {
                    String variable = spec.env().get(i);
                    if (variable == null || variable.length() > 1024 || !ContainerOptions.VARIABLE.matcher(variable).matches()) {
                        errors.add(new FieldError(prefix + ".env[" + i + "]", "'" + InputText.shown(
                                String.valueOf(variable)) + "' is not a variable name"));
                    }
                }
            }
        }
        return errors;
    }

    private static void mount(String field, String mount, List<FieldError> errors) {
        if (mount == null) {
            errors.add(new FieldError(field, "must not be null"));
            return;
        }
        String[] parts = mount.split(":", -1);
        if (parts.length < 2 || parts.length > 3 || (parts.length == 3 && !parts[2].equals("ro")
                && !parts[2].equals("rw"))) {
            errors.add(new FieldError(field, "'" + InputText.shown(mount) + "' is not SRC:DST[:ro|rw]"));
            return;
        }
        int before = errors.size();
        path(field, parts[0], errors);
        if (errors.size() == before) {
            path(field, parts[1], errors);
        }
    }

    private static void path(String field, String path, List<FieldError> errors) {
        if (path.isEmpty() || !path.startsWith("/")) {
            errors.add(new FieldError(field, "must be an absolute path (it is '" + InputText.shown(path) + "'): a "
                    + "relative one means nothing on the job's nodes"));
        } else if (path.length() > ContainerOptions.MAX_PATH) {
            errors.add(new FieldError(field, "is " + path.length() + " characters long; at most " + ContainerOptions.MAX_PATH));
        } else if (ControlCharacters.in(path) || path.indexOf(',') >= 0) {
            errors.add(new FieldError(field, "must not hold control characters or commas"));
        }
    }
}
