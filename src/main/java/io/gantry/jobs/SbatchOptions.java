package io.gantry.jobs;

import java.util.List;
import java.util.Map;

/**
 * What the {@code #SBATCH} directives of a script ask for. Every field is {@code null} when no
 * directive gave it; names follow the job fields of the REST API.
 *
 * @param name {@code -J/--job-name}
 * @param partition {@code -p/--partition}, as given (may be a comma list)
 * @param nodes the minimum of {@code -N/--nodes}
 * @param maxNodes the maximum of {@code -N min-max}; equal to {@code nodes} for a single count
 * @param tasks {@code -n/--ntasks}
 * @param memoryMb {@code --mem} per node; 0 asks for all the memory of each node
 * @param gpus {@code -G/--gpus}, for the whole job
 * @param gpusPerNode {@code --gpus-per-node} or the count of {@code --gres=gpu}
 * @param gpuType the type named by any of the GPU options; they must agree
 * @param timeLimitSeconds {@code -t/--time}; {@link io.gantry.engine.SlurmTime#UNLIMITED} for none
 * @param constraints {@code -C/--constraint}, as given
 * @param exclusive true for {@code --exclusive} in any of its forms
 * @param dependency {@code -d/--dependency} in {@link DependencySpec}'s canonical form
 * @param array {@code -a/--array} in {@link ArraySpec}'s canonical form
 * @param nice {@code --nice}; 100 when given without a value, as in Slurm
 * @param workdir {@code -D/--chdir}
 * @param requeue true for {@code --requeue}, false for {@code --no-requeue}; the last wins
 * @param nodelist {@code -w/--nodelist} as a compressed hostlist
 * @param exclude {@code -x/--exclude} as a compressed hostlist
 * @param beginTime {@code -b/--begin}, to resolve against the submission time
 * @param export {@code --export}, as given
 * @param signal {@code --signal} in {@link JobSignal}'s canonical form ({@code B:USR1@60})
 * @param switches {@code --switches} in {@link JobSwitches}'s stored form ({@code 2@300})
 * @param timeMinSeconds {@code --time-min}, in seconds
 * @param segment {@code --segment}: nodes per group that shares one block
 * @param exclusiveMode the mode of {@code --exclusive=mode} (user, mcs or topo), null for plain {@code --exclusive}
 * @param shards {@code --gres=shard:N}
 * @param container pyxis's {@code --container-*} and Slurm's {@code --container}, as given (checked by the
 *     submission with {@link ContainerFlags#check}); null when none was given
 * @param asked the values of the options a job keeps as asked ({@link JobOptions}), by long name, as
 *     their parsers gave them; never null
 * @param warnings options that were accepted but that Gantry does not act on, with their
 *     lines; never null
 * @param lines the line each option was last given on, by its long name ({@code "nodelist"} for
 *     {@code -w}); never null
 */
public record SbatchOptions(
        String name,
        String partition,
        String account,
        String qos,
        Integer nodes,
        Integer maxNodes,
        Integer tasks,
        Integer cpusPerTask,
        Long memoryMb,
        Long memPerCpuMb,
        Long memPerGpuMb,
        Integer gpus,
        Integer gpusPerNode,
        Integer gpusPerTask,
        Integer cpusPerGpu,
        String gpuType,
        Long timeLimitSeconds,
        String constraints,
        Boolean exclusive,
        String dependency,
        String array,
        Boolean hold,
        Integer nice,
        String workdir,
        String stdout,
        String stderr,
        Boolean requeue,
        Integer ntasksPerNode,
        String nodelist,
        String exclude,
        BeginTime beginTime,
        String reservation,
        String export,
        String comment,
        String signal,
        String switches,
        Long timeMinSeconds,
        Integer segment,
        String exclusiveMode,
        Integer shards,
        io.gantry.noded.protocol.ContainerSpec container,
        Map<String, Object> asked,
        List<String> warnings,
        Map<String, Integer> lines) {

    public SbatchOptions {
        asked = asked == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(asked));
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
        lines = lines == null ? Map.of() : Map.copyOf(lines);
    }

    /** The value a directive gave the option of this long name that the job keeps as asked; null when none did. */
    public <T> T asked(String longName, Class<T> type) {
        return type.cast(asked.get(longName));
    }

    /** The line the option of this long name was last given on, or null when no directive gave it. */
    public Integer lineOf(String longName) {
        return lines.get(longName);
    }

}
