#!/usr/bin/env python3
"""Runs every line of src/test/resources/slurm-corpus/corpus.tsv with the Slurm commands first on PATH
(Gantry's launchers, or a real Slurm's) and prints each line's exit code and output, so the two can be
read side by side; with --record DIR it writes them as DIR/NN-tool.txt (the reference Slurm's answers).

Placeholders as SlurmToolsCorpusIntegrationTests fills them: {JOB} a running job named {UUID}, {DONE} a
completed job, {NEW} a fresh held job and {NEWRUN} a fresh running one (one per occurrence), {USER}, {DIR}, {CLUSTER}, {US}/{RS} the
unit and record separators, {STARTTIME} two days ago as %Y-%m-%dT%H:00, {NOW}.

usage: scripts/run-slurm-corpus.py [--record DIR] [--cluster NAME] [--partition cpu]
"""
import datetime, os, re, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "src/test/resources/slurm-corpus/corpus.tsv")


def sh(cmd, cwd):
    p = subprocess.run(["sh", "-c", cmd], cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    args = sys.argv[1:]
    record = args[args.index("--record") + 1] if "--record" in args else None
    cluster = args[args.index("--cluster") + 1] if "--cluster" in args else "gantry"
    work = tempfile.mkdtemp(prefix="slurm-corpus-")
    uuid = "corpus-4d1c0a77"
    user = os.environ.get("USER", "root")
    _, out, err = sh(f"sbatch --parsable -J {uuid} -p cpu -t 30:00 --wrap 'sleep 900'", work)
    job = out.strip().split(";")[0]
    _, out, _ = sh("sbatch --parsable -p cpu -t 0:10 --wrap true", work)
    done = out.strip().split(";")[0]
    for _ in range(120):
        ended = "COMPLETED" in sh(f"sacct -X -n -P -j {done} -o State", work)[1] \
            or sh(f"squeue -h -t all -j {done} -o %T", work)[1].strip() in ("", "COMPLETED")
        if sh(f"squeue -h -j {job} -o %T", work)[1].strip() == "RUNNING" and ended:
            break
        time.sleep(1)
    now = datetime.datetime.now()
    values = {"JOB": job, "DONE": done, "USER": user, "DIR": work, "CLUSTER": cluster, "UUID": uuid,
              "US": "\x1f", "RS": "\x1e", "NOW": now.strftime("%Y-%m-%dT%H:%M:%S"),
              "STARTTIME": (now - datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:00")}
    rows = [l.rstrip("\n").split("\t") for l in open(CORPUS, encoding="utf-8")][1:]
    if record:
        os.makedirs(record, exist_ok=True)
    for n, (tool, version, source, command, parses, check) in enumerate(rows, 1):
        line = command
        while "{NEW}" in line:
            new = sh("sbatch --parsable -H -J victim --wrap 'sleep 100'", work)[1].strip().split(";")[0]
            line = line.replace("{NEW}", new, 1)
        while "{NEWRUN}" in line:
            new = sh("sbatch --parsable -p cpu -J victim-run -t 10:00 --wrap 'sleep 300'", work)[1].strip().split(";")[0]
            for _ in range(60):
                if sh(f"squeue -h -j {new} -o %T", work)[1].strip() == "RUNNING":
                    break
                time.sleep(1)
            line = line.replace("{NEWRUN}", new, 1)
        for k, v in values.items():
            line = line.replace("{" + k + "}", v)
        rc, out, err = sh(line, work)
        text = f"# {tool} {source}\n# {line}\n# exit {rc}\n--- stdout\n{out}--- stderr\n{err}"
        if record:
            with open(os.path.join(record, f"{n:02d}-{tool}.txt"), "w", encoding="utf-8") as f:
                f.write(text)
        else:
            print(f"=== {n:02d} " + text.replace("\x1f", "<US>").replace("\x1e", "<RS>"))
    sh(f"scancel {job}", work)


if __name__ == "__main__":
    main()
