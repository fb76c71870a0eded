package io.gantry.noded.protocol;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * Where a job's batch script or a step's tasks run: an OCI image, as NVIDIA's pyxis takes it on
 * Slurm ({@code --container-*}), or a prepared OCI bundle, as Slurm's own {@code --container=PATH}.
 * Null fields take pyxis's defaults. The same record travels in the REST API (job submission, step
 * request), in the controller's store and in the agents' LAUNCH and STEP_LAUNCH commands.
 */
@Schema(name = "ContainerSpec", description = "An OCI image (pyxis's --container-image and friends) or an OCI "
        + "bundle (Slurm's --container) to run in")
public record ContainerSpec(
        @Schema(description = "pyxis's --container-image: [USER@][REGISTRY#]IMAGE[:TAG], REGISTRY/IMAGE:TAG, or an "
                + "absolute path to an image archive on the node") String image,
        @Schema(description = "Slurm's --container: an absolute path to an OCI bundle directory on the node (its "
                + "config.json and rootfs); not with image") String bundle,
        @Schema(description = "--container-mounts: SRC:DST[:ro|rw] bind mounts, SRC absolute on the node")
        List<String> mounts,
        @Schema(description = "--container-workdir: the working directory inside") String workdir,
        @Schema(description = "--container-name: a container kept for the job's life on each node and reused by "
                + "its later steps that name it") String name,
        @Schema(description = "--container-env: names of variables whose host values override the image's")
        List<String> env,
        @Schema(description = "--container-mount-home (default true) / --no-container-mount-home") Boolean mountHome,
        @Schema(description = "--container-remap-root: uid 0 inside (still the owner outside); default false")
        Boolean remapRoot,
        @Schema(description = "--container-writable (default) / --container-readonly: the root file system")
        Boolean writable,
        @Schema(description = "--container-entrypoint: run the image's entrypoint before the command; default false")
        Boolean entrypoint) {

    public ContainerSpec {
        mounts = mounts == null ? null : List.copyOf(mounts);
        env = env == null ? null : List.copyOf(env);
    }

    /** A container of this image with pyxis's defaults. */
    public static ContainerSpec ofImage(String image) {
        return new ContainerSpec(image, null, null, null, null, null, null, null, null, null);
    }

    public boolean mountsHome() {
        return mountHome == null || mountHome;
    }

    public boolean remapsRoot() {
        return remapRoot != null && remapRoot;
    }

    public boolean isWritable() {
        return writable == null || writable;
    }

    public boolean runsEntrypoint() {
        return entrypoint != null && entrypoint;
    }
}
