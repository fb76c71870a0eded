package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.gantry.noded.protocol.ContainerSpec;
import io.gantry.api.GantryException.FieldError;

/** pyxis's container options as {@code #SBATCH} lines and sbatch's command line give them, and their checks. */
class ContainerFlagsTests {

    @Test
    void everyPyxisOptionOnAnSbatchLineFillsTheSpec() {
        SbatchOptions options = SbatchDirectives.parse("""
                #!/bin/bash
                #SBATCH --container-image nvcr.io\\#nvidia/pytorch:24.05-py3
                #SBATCH --container-mounts=/data:/data:ro,/scratch:/tmp/scratch:rw --container-mounts=/home
                #SBATCH --container-workdir=/data --container-name=torch:auto
                #SBATCH --container-env=NCCL_DEBUG,HF_HOME --container-env=NCCL_DEBUG
                #SBATCH --no-container-mount-home --container-remap-root --container-readonly --container-entrypoint
                python train.py
                """);
        ContainerSpec c = options.container();
        assertThat(c.image()).isEqualTo("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(c.bundle()).isNull();
        assertThat(c.mounts()).containsExactly("/data:/data:ro", "/scratch:/tmp/scratch:rw", "/home:/home");
        assertThat(c.workdir()).isEqualTo("/data");
        assertThat(c.name()).isEqualTo("torch");
        assertThat(c.env()).containsExactly("NCCL_DEBUG", "HF_HOME");
        assertThat(c.mountsHome()).isFalse();
        assertThat(c.remapsRoot()).isTrue();
        assertThat(c.isWritable()).isFalse();
        assertThat(c.runsEntrypoint()).isTrue();
        assertThat(options.lineOf("container-image")).isEqualTo(2);
        assertThat(options.warnings()).isEmpty();
        assertThat(ContainerFlags.check(c, "container", true)).isEmpty();
    }

    @Test
    void aLaterOptionWinsSoTheCommandLineOverridesTheScript() {
        // sbatch passes its command line as directives after the script's own
        ContainerSpec c = SbatchDirectives.parse("#!/bin/sh\n#SBATCH --container-image=ubuntu:22.04\n"
                + "#SBATCH --container-writable\n#SBATCH --container-image=debian:12 --container-readonly\ntrue\n")
                .container();
        assertThat(c.image()).isEqualTo("debian:12");
        assertThat(c.writable()).isFalse();
    }

    @Test
    void slurmsContainerOptionIsABundle() {
        ContainerSpec c = SbatchDirectives.parse("#!/bin/sh\n#SBATCH --container=/srv/bundles/hello\ntrue\n").container();
        assertThat(c.bundle()).isEqualTo("/srv/bundles/hello");
        assertThat(c.image()).isNull();
        assertThat(ContainerFlags.check(c, "container", true)).isEmpty();
    }

    @Test
    void aScriptWithoutContainerOptionsHasNoContainer() {
        assertThat(SbatchDirectives.parse("#!/bin/sh\n#SBATCH -N1\ntrue\n").container()).isNull();
    }

    @Test
    void malformedValuesAreErrorsOfTheirLine() {
        assertThatExceptionOfType(SbatchException.class).isThrownBy(() -> SbatchDirectives.parse("""
                #!/bin/sh
                #SBATCH --container-mounts=/a:/b:ro+rprivate
                #SBATCH --container-name=torch:exec
                #SBATCH --container-env=A,,B
                #SBATCH --container-image=
                true
                """)).satisfies(e -> assertThat(e.errors()).extracting(ScriptError::line, ScriptError::option)
                .containsExactly(org.assertj.core.api.Assertions.tuple(2, "--container-mounts"),
                        org.assertj.core.api.Assertions.tuple(3, "--container-name"),
                        org.assertj.core.api.Assertions.tuple(4, "--container-env"),
                        org.assertj.core.api.Assertions.tuple(5, "--container-image")));
    }

    @ParameterizedTest(name = "{0} is an image pyxis takes")
    @ValueSource(strings = {"ubuntu", "ubuntu:22.04", "nvcr.io#nvidia/pytorch:24.05-py3", "alice@nvcr.io#nvidia/pytorch",
        "127.0.0.1:5000/test:1", "localhost:5000/a/b/c:v1.2-rc_3", "docker://ubuntu:24.04", "registry.example.com/ns/app",
        "ubuntu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "/shared/images/pytorch.sqsh",
        "gitlab-registry.example.com:4567#group/sub-group/app__x:tag"})
    void goodImages(String image) {
        assertThat(ContainerFlags.check(ContainerSpec.ofImage(image), "container", true)).isEmpty();
    }

    @ParameterizedTest(name = "{0} is refused")
    @ValueSource(strings = {"Ubuntu", "ubuntu latest", "ubuntu:", ":tag", "nvcr.io#", "a#b#c", "ubuntu:tag:more",
        "image/", "relative/../x.sqsh/", "-rf", "ubuntu\n", "a//b"})
    void badImages(String image) {
        assertThat(ContainerFlags.check(ContainerSpec.ofImage(image), "container", true))
                .extracting(FieldError::field).containsExactly("container.image");
    }

    @Test
    void eachFieldIsCheckedAndNamed() {
        ContainerSpec spec = new ContainerSpec("ubuntu", "/srv/b", List.of("/a:/b", "a:/b", "/a", "/a:/b:rshared"),
                "work", "my name", List.of("OK", "1BAD", "A-B"), null, null, null, null);
        assertThat(ContainerFlags.check(spec, "container", true)).extracting(FieldError::field).containsExactly(
                "container.bundle", "container.mounts[1]", "container.mounts[2]", "container.mounts[3]",
                "container.workdir", "container.name", "container.env[1]", "container.env[2]");
    }

    @Test
    void aJobNeedsAnImageOrBundleWhileAStepMayNameAnEarlierContainer() {
        ContainerSpec named = new ContainerSpec(null, null, null, null, "torch", null, null, null, null, null);
        assertThat(ContainerFlags.check(named, "container", true)).extracting(FieldError::field)
                .containsExactly("container.image");
        assertThat(ContainerFlags.check(named, "container", false)).isEmpty();
        ContainerSpec flagsAlone = new ContainerSpec(null, null, null, "/w", null, null, null, true, null, null);
        assertThat(ContainerFlags.check(flagsAlone, "container", false)).extracting(FieldError::field)
                .containsExactly("container.image");
    }

    @Test
    void pyxisVariablesFillWhatNoOptionGave() {
        ContainerSpec given = new ContainerSpec(null, null, List.of("/cli:/cli"), null, null, null, null, null, null,
                null);
        ContainerSpec merged = io.gantry.noded.protocol.ContainerOptions.withEnvironment(given, java.util.Map.of(
                "PYXIS_CONTAINER_IMAGE", "ubuntu:22.04", "PYXIS_CONTAINER_MOUNTS", "/env:/env",
                "PYXIS_CONTAINER_REMAP_ROOT", "yes", "PYXIS_CONTAINER_MOUNT_HOME", "maybe",
                "PYXIS_CONTAINER_WRITABLE", "0", "PYXIS_CONTAINER_READONLY", "0"));
        assertThat(merged.image()).isEqualTo("ubuntu:22.04");
        assertThat(merged.mounts()).as("the option wins over the variable").containsExactly("/cli:/cli");
        assertThat(merged.remapRoot()).isTrue();
        assertThat(merged.mountHome()).as("not a boolean pyxis reads: ignored").isNull();
        assertThat(merged.writable()).as("WRITABLE=0 is read first").isFalse();

        assertThat(io.gantry.noded.protocol.ContainerOptions.withEnvironment(null, java.util.Map.of("PYXIS_CONTAINER_READONLY", "1")).writable())
                .isFalse();
        assertThat(io.gantry.noded.protocol.ContainerOptions.withEnvironment(given, java.util.Map.of("HOME", "/h"))).isSameAs(given);
        assertThat(io.gantry.noded.protocol.ContainerOptions.withEnvironment(null, java.util.Map.of())).isNull();
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> io.gantry.noded.protocol.ContainerOptions.withEnvironment(
                null, java.util.Map.of("PYXIS_CONTAINER_MOUNTS", "/a:/b:rshared")))
                .withMessageStartingWith("PYXIS_CONTAINER_MOUNTS: ");
    }
}
