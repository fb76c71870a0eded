package io.gantry.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * An {@code nvidia-smi} for agents on machines without GPUs, put first on an agent's PATH: it lists
 * {@code gpus} GPUs and answers {@code --query-gpu=} with each GPU's utilisation read from the file
 * {@code gpu-<index>.util} in its directory (a job sets its own GPU's with
 * {@code echo 80 > DIR/gpu-$SLURM_JOB_GPUS.util}), {@link #DEFAULT_UTILIZATION} while there is none.
 * Memory reads 1000 MiB of 16384, power 250.5 W.
 */
public final class FakeNvidiaSmi {

    /** What a GPU reads before anyone set it: busy, so that nothing is idle by accident. */
    public static final int DEFAULT_UTILIZATION = 50;

    private final Path bin;

    private FakeNvidiaSmi(Path bin) {
        this.bin = bin;
    }

    /** Writes the script into {@code dir}/fake-bin. */
    public static FakeNvidiaSmi install(Path dir, int gpus) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("fake-bin"));
        Path smi = bin.resolve("nvidia-smi");
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < gpus; i++) {
            list.append("  echo \"GPU ").append(i).append(": NVIDIA Test GPU (UUID: GPU-fake-").append(i).append(")\"\n");
        }
        Files.writeString(smi, """
                #!/bin/bash
                if [ "$1" = "-L" ]; then
                %s  exit 0
                fi
                if [ "$1" = "-q" ]; then exit 0; fi
                query=""
                for a in "$@"; do case "$a" in --query-gpu=*) query="${a#--query-gpu=}";; esac; done
                [ -n "$query" ] || exit 0
                for (( i = 0; i < %d; i++ )); do
                  util=%d
                  [ -s %s/gpu-$i.util ] && util=$(cat %s/gpu-$i.util)
                  line=""
                  IFS=, read -ra fields <<< "$query"
                  for f in "${fields[@]}"; do
                    case "$f" in
                      index) v=$i;;
                      uuid) v=GPU-fake-$i;;
                      name) v="NVIDIA Test GPU";;
                      pci.bus_id) v=00000000:0$i:00.0;;
                      utilization.gpu) v=$util;;
                      memory.used) v=1000;;
                      memory.total) v=16384;;
                      power.draw) v=250.5;;
                      temperature.gpu) v=50;;
                      ecc.errors.uncorrected.volatile.total) v=0;;
                      *) v="[N/A]";;
                    esac
                    line="${line:+$line, }$v"
                  done
                  echo "$line"
                done
                """.formatted(list, gpus, DEFAULT_UTILIZATION, bin, bin));
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        return new FakeNvidiaSmi(bin);
    }

    /** The directory to put first on the agent's PATH; the util files live there too. */
    public Path bin() {
        return bin;
    }

    /** The shell line a job script runs to make its GPU(s) read {@code percent}. */
    public String setOwnUtilization(int percent) {
        return "for g in ${SLURM_JOB_GPUS//,/ }; do echo -n " + percent + " > " + bin + "/gpu-$g.util; done";
    }
}
