package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Image references as pyxis's users write them (its README's examples) and as Docker writes them. */
class ContainerImageRefTests {

    @Test
    void pyxisRegistrySeparator() {
        ContainerImageRef ref = ContainerImageRef.parse("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(ref.registry()).isEqualTo("nvcr.io");
        assertThat(ref.repository()).isEqualTo("nvidia/pytorch");
        assertThat(ref.tag()).isEqualTo("24.05-py3");
        assertThat(ref.user()).isNull();
        assertThat(ref.source()).isEqualTo("docker://nvcr.io/nvidia/pytorch:24.05-py3");
        assertThat(ref.insecure()).isFalse();
    }

    @Test
    void pyxisUserAndRegistry() {
        ContainerImageRef ref = ContainerImageRef.parse("$oauthtoken@nvcr.io#nvidia/tensorflow:21.02-tf2-py3");
        assertThat(ref.user()).isEqualTo("$oauthtoken");
        assertThat(ref.registry()).isEqualTo("nvcr.io");
        assertThat(ref.repository()).isEqualTo("nvidia/tensorflow");
        assertThat(ref.tag()).isEqualTo("21.02-tf2-py3");
    }

    @Test
    void dockerHubNamesAsPyxisDoes() {
        assertThat(ContainerImageRef.parse("ubuntu").source()).isEqualTo("docker://docker.io/library/ubuntu:latest");
        assertThat(ContainerImageRef.parse("centos:8").source()).isEqualTo("docker://docker.io/library/centos:8");
        assertThat(ContainerImageRef.parse("nvidia/cuda:12.4.1-base-ubuntu22.04").source())
                .isEqualTo("docker://docker.io/nvidia/cuda:12.4.1-base-ubuntu22.04");
        assertThat(ContainerImageRef.parse("docker://ubuntu:22.04").source())
                .isEqualTo("docker://docker.io/library/ubuntu:22.04");
        assertThat(ContainerImageRef.parse("alice@ubuntu").user()).isEqualTo("alice");
    }

    @Test
    void plainRegistryPaths() {
        ContainerImageRef local = ContainerImageRef.parse("127.0.0.1:5000/test:1");
        assertThat(local.registry()).isEqualTo("127.0.0.1:5000");
        assertThat(local.repository()).isEqualTo("test");
        assertThat(local.tag()).isEqualTo("1");
        assertThat(local.insecure()).isTrue();
        assertThat(ContainerImageRef.parse("localhost/tools/x").registry()).isEqualTo("localhost");
        assertThat(ContainerImageRef.parse("localhost/tools/x").insecure()).isTrue();
        ContainerImageRef ghcr = ContainerImageRef.parse("ghcr.io/org/img:v2");
        assertThat(ghcr.registry()).isEqualTo("ghcr.io");
        assertThat(ghcr.repository()).isEqualTo("org/img");
        assertThat(ghcr.insecure()).isFalse();
        assertThat(ContainerImageRef.parse("127.0.0.1:5000#test:1").source())
                .isEqualTo("docker://127.0.0.1:5000/test:1");
    }

    @Test
    void digests() {
        String digest = "sha256:" + "ab".repeat(32);
        ContainerImageRef ref = ContainerImageRef.parse("nvcr.io#nvidia/pytorch@" + digest);
        assertThat(ref.digest()).isEqualTo(digest);
        assertThat(ref.tag()).isNull();
        assertThat(ref.source()).isEqualTo("docker://nvcr.io/nvidia/pytorch@" + digest);
        assertThat(ContainerImageRef.parse("ubuntu:22.04").pinned(digest))
                .isEqualTo("docker://docker.io/library/ubuntu@" + digest);
    }

    @Test
    void archivesOnTheNode() {
        ContainerImageRef ref = ContainerImageRef.parse("/shared/images/../images/pytorch.tar");
        assertThat(ref.isArchive()).isTrue();
        assertThat(ref.archive()).isEqualTo(Path.of("/shared/images/pytorch.tar"));
    }

    @Test
    void mistakesAreNamed() {
        assertThatThrownBy(() -> ContainerImageRef.parse("")).hasMessageContaining("no image");
        assertThatThrownBy(() -> ContainerImageRef.parse("Ubuntu")).hasMessageContaining("not an image name");
        assertThatThrownBy(() -> ContainerImageRef.parse("ubuntu@sha256:zz")).hasMessageContaining("digest");
        assertThatThrownBy(() -> ContainerImageRef.parse("bad host#x")).hasMessageContaining("registry");
        assertThatThrownBy(() -> ContainerImageRef.parse("nvcr.io#")).hasMessageContaining("no image name");
    }
}
