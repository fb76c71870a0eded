package io.gantry.noded;

import io.gantry.noded.JobProcess.InContainer;
import io.gantry.noded.JobProcess.Settings;
import io.gantry.noded.JobProcess.StartFailure;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The second stage of a batch job (see {@link JobProcess}): the shell that runs as the job's owner,
 * the private files the agent prepares for it in {@code jobs/<id>/} (script, environment, container
 * command), its command line, and what it leaves behind (the setup failure it reports, the exit
 * status it records). Everything here runs before or after the job's processes, never beside them.
 */
final class BatchStage {

    /** The largest launch-failure message kept from the second stage. */
    static final int MAX_FAILURE_BYTES = 4096;

    /**
     * The second stage, run as the job's owner. Arguments: working directory, output file, error
     * file (empty: with the output), umask, environment file (NUL-separated NAME=value), script,
     * status file; for a container, the runtime's command (a NUL-separated file), the paths the owner
     * must be able to read for it (likewise) and the runtime's log, whose errors are copied to the
     * job's error file when the container fails. It stays the script's parent, as slurmstepd does, and writes the script's exit
     * status to the status file, so an agent that restarted meanwhile still learns how the job
     * ended; signals it outlives (its traps do nothing) so the script gets its kill wait.
     */
    static final String STAGE = """
            fail() { printf '%s\\n' "$*" >&2; exit 1; }
            read -r go || exit 1
            exec </dev/null
            umask "$4" 2>/dev/null || fail "unusable umask $4"
            me=$(id -un 2>/dev/null || id -u)
            [ -d "$1" ] || fail "the working directory $1 does not exist"
            cd -- "$1" 2>/dev/null || fail "user $me may not enter the working directory $1"
            err=$( { : >"$2"; } 2>&1 ) || fail "user $me may not write the output file $2: ${err##*: }"
            if [ -n "$3" ]; then
              err=$( { : >"$3"; } 2>&1 ) || fail "user $me may not write the error file $3: ${err##*: }"
            fi
            mapfile -d '' -t vars < "$5" || fail "cannot read the job's environment"
            rm -f -- "$5"
            if [ -n "$8" ]; then
              mapfile -d '' -t need < "$9" || fail "cannot read the container's paths"
              for p in "${need[@]}"; do [ -r "$p" ] || fail "user $me may not read $p (for the container)"; done
              mapfile -d '' -t ctr < "$8" || fail "cannot read the container's command"
            fi
            exec 1>>"$2"
            if [ -n "$3" ]; then exec 2>>"$3"; else exec 2>&1; fi
            trap 'stopped=143' TERM; trap 'stopped=130' INT; trap : HUP QUIT USR1 USR2 ALRM
            [ -z "$stopped" ] || exit "$stopped"
            if [ -n "$8" ]; then
              # the container's runtime, rootless: the script runs inside (the bundle mounts it)
              ( exec env -i -- "${vars[@]}" "${ctr[@]}" )
              rc=$?
              if [ "$rc" -ne 0 ] && [ -s "${10}" ]; then
                sed -n 's/.*level=error msg="\\(.*\\)".*/gantry: container: \\1/p' -- "${10}" >&2
              fi
              printf '%s\n' "$rc" > "$7" 2>/dev/null
              exit "$rc"
            fi
            # a subshell that execs into the script, so the script knows its own pid (SLURM_TASK_PID)
            if [ "$(head -c 2 -- "$6")" = "#!" ]; then
              ( exec env -i -- "${vars[@]}" SLURM_TASK_PID="$BASHPID" "$6" )
            else
              ( exec env -i -- "${vars[@]}" SLURM_TASK_PID="$BASHPID" /bin/bash "$6" )
            fi
            rc=$?
            printf '%s\n' "$rc" > "$7" 2>/dev/null
            exit "$rc"
            """;

    /** Where the stage reads and writes: the job's paths on this node and its private files. */
    record Prepared(Path workingDir, Path stdout, Path stderr, Path jobDir, Path script, Path environment,
            Path containerCommand, Path containerReads, String containerLog) {
    }

    private BatchStage() {
    }

    /**
     * Resolves the job's working directory and output files, and writes its script, environment (and
     * container command) into a fresh {@code jobs/<id>/}, handed to {@code owner} when the stage
     * switches user.
     */
    static Prepared prepare(Launch launch, Settings settings, UnixAccount owner, String workdir, boolean switchUser,
            InContainer container) throws StartFailure {
        String node = settings.node();
        Path workingDir;
        Path stdout;
        Path stderr;
        try {
            workingDir = Path.of(workdir);
            if (!workingDir.isAbsolute()) {
                throw new StartFailure("the working directory '" + workdir + "' is not an absolute path");
            }
            JobOutputFiles.Files files = JobOutputFiles.of(launch, workingDir, node, owner);
            stdout = files.stdout();
            stderr = files.stderr();
        } catch (InvalidPathException e) {
            throw new StartFailure("unusable path in the job's working directory or output files: " + e.getReason());
        }

        Path jobDir;
        Path script;
        Path environment;
        Path containerCommand = null;
        Path containerReads = null;
        String containerLog = "";
        try {
            jobDir = settings.dirs().freshJobDir(launch.jobId());
            script = jobDir.resolve("script.sh");
            environment = jobDir.resolve("environment");
            writePrivate(script, (launch.script() == null ? "" : launch.script()).getBytes(StandardCharsets.UTF_8),
                    "rwx------");
            Map<String, String> env = JobProcess.environment(launch, settings, workdir, owner);
            writePrivate(environment, environmentFile(env), "rw-------");
            List<Path> files = new ArrayList<>(List.of(script, environment, jobDir));
            if (container != null) {
                ContainerRuntime.Command run = container.command(owner, env, workdir, script);
                containerCommand = jobDir.resolve("container");
                containerReads = jobDir.resolve("container-reads");
                writePrivate(containerCommand, nulSeparated(run.argv()), "rw-------");
                writePrivate(containerReads, nulSeparated(run.mustRead()), "rw-------");
                int log = run.argv().indexOf("--log");
                containerLog = log >= 0 && log + 1 < run.argv().size() ? run.argv().get(log + 1) : "";
                files.addAll(List.of(containerCommand, containerReads));
            }
            if (switchUser) {
                for (Path p : files) {
                    Files.setAttribute(p, "unix:gid", (int) owner.gid(), LinkOption.NOFOLLOW_LINKS);
                    Files.setAttribute(p, "unix:uid", (int) owner.uid(), LinkOption.NOFOLLOW_LINKS);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new StartFailure("cannot prepare the job's directory on " + node + ": " + e);
        } catch (StartFailure e) {
            throw new StartFailure(e.getMessage() + " (on " + node + ")");
        }
        return new Prepared(workingDir, stdout, stderr, jobDir, script, environment, containerCommand, containerReads,
                containerLog);
    }

    /**
     * The stage's process, not started: {@code setsid}, the fence's launcher (as root: it hides the
     * GPUs the job was not given), {@code setpriv} to the owner when switching user, then the stage
     * with its arguments, in an environment holding nothing but {@code PATH}.
     */
    static ProcessBuilder command(Prepared p, JobFence cgroup, UnixAccount owner, boolean switchUser, String umask) {
        List<String> command = new ArrayList<>(List.of("setsid"));
        if (cgroup != null) {
            command.addAll(cgroup.launcher());
        }
        if (switchUser) {
            command.addAll(List.of("setpriv", "--reuid=" + owner.uid(), "--regid=" + owner.gid(),
                    "--groups=" + String.join(",", owner.groups().stream().map(String::valueOf).toList()),
                    "--inh-caps=-all", "--"));
        }
        command.addAll(List.of("/bin/bash", "-c", STAGE, "gantry-job", p.workingDir().toString(),
                p.stdout().toString(), p.stderr() == null || p.stderr().equals(p.stdout()) ? "" : p.stderr().toString(),
                umask, p.environment().toString(), p.script().toString(), p.jobDir().resolve("status").toString(),
                p.containerCommand() == null ? "" : p.containerCommand().toString(),
                p.containerReads() == null ? "" : p.containerReads().toString(), p.containerLog()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(Path.of("/").toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        return builder;
    }

    /**
     * What the stage wrote before it handed its standard error to the job: nothing (null) when it
     * set up and exec'd the script, else why it could not.
     */
    static String setupFailure(Process process) {
        try (InputStream in = process.getErrorStream()) {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            byte[] buffer = new byte[1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (text.size() < MAX_FAILURE_BYTES) {
                    text.write(buffer, 0, Math.min(n, MAX_FAILURE_BYTES - text.size()));
                }
            }
            String s = text.toString(StandardCharsets.UTF_8).strip();
            return s.isEmpty() ? null : s.replaceAll("\\p{Cntrl}+", " ");
        } catch (IOException e) {
            return null;
        }
    }

    /** The exit status the stage recorded in {@code statusFile}, if it did. */
    static OptionalInt recordedStatus(Path statusFile) {
        // jobs/<id>/ is the job user's: the agent (root) reads only a regular file there, not through a link at
        // its end, and a few bytes of it at most (a link to /dev/zero or a FIFO would stall or flood it)
        if (!Files.isRegularFile(statusFile, LinkOption.NOFOLLOW_LINKS)) {
            return OptionalInt.empty();
        }
        try (var channel = Files.newByteChannel(statusFile, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            java.nio.ByteBuffer status = java.nio.ByteBuffer.allocate(16);
            while (status.hasRemaining() && channel.read(status) > 0) {
                // an exit status and a newline fit
            }
            return OptionalInt.of(Integer.parseInt(new String(status.array(), 0, status.position(),
                    StandardCharsets.US_ASCII).strip()));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    private static byte[] nulSeparated(List<String> words) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String w : words) {
            out.writeBytes(w.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        return out.toByteArray();
    }

    /** The job's environment as the second stage reads it: NUL-separated {@code NAME=value} entries. */
    private static byte[] environmentFile(Map<String, String> env) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        env.forEach((k, v) -> {
            if (k != null && v != null) {
                out.writeBytes((k + "=" + v).getBytes(StandardCharsets.UTF_8));
                out.write(0);
            }
        });
        return out.toByteArray();
    }

    private static void writePrivate(Path file, byte[] content, String mode) throws IOException {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode)));
        Files.write(file, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
    }
}
