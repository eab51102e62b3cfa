#!/usr/bin/env bash
# CI guard against a merge or diff speed or memory regression (issue 37). Generates the
# two big scenes of scripts/gen-merge-scenes.py (mesh-heavy: big packed arrays;
# node-heavy: ~135,000 small nodes; both sides changed), then runs `tscn-merge merge` and
# `git merge-file -p --diff3` on them alternately, RUNS times each after one untimed run
# of each, output discarded; then `tscn-merge diff` and `git diff --no-index` of base
# and ours the same way. Each run is one child process measured by wait4(2): CPU is
# user + system time of the process and all its threads; memory is its peak resident
# set (max RSS). Compared are the medians.
#
# Fails (exit 1) when on either scene, for either job, tscn-merge's median CPU is over MAX_CPU times
# git's (default 2) or its median peak memory over MAX_MEM times git's (default 1.5), or
# when a tscn-merge run fails (exit status other than 0 or 1). CPU time, not wall time:
# a loaded machine stretches wall time but CPU time far less, and both tools see the
# same machine in turn. The bounds catch a regression of a few tens of percent, not
# noise: the aims (docs/benchmarks.md) are tighter.
#
#   scripts/bench-guard.sh [--runs N] [--mb MB] [--bin PATH] [--docs]
#                          [--max-cpu R] [--max-mem R] [--scenes DIR]
#
# --bin: a built tscn-merge (default: `cargo build --release`, then its binary);
# --scenes: a folder already holding the generated scenes (default: generate them);
# --docs: also append the history lines to docs/benchmarks.md (between the bench-guard
# and bench-guard-diff markers). The history lines are printed in any case, last.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
RUNS=5
MB=20
BIN=""
SCENES=""
DOCS=0
MAX_CPU=2
MAX_MEM=1.5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) RUNS="$2"; shift ;;
    --mb) MB="$2"; shift ;;
    --bin) BIN="$2"; shift ;;
    --scenes) SCENES="$2"; shift ;;
    --docs) DOCS=1 ;;
    --max-cpu) MAX_CPU="$2"; shift ;;
    --max-mem) MAX_MEM="$2"; shift ;;
    *) echo "usage: $0 [--runs N] [--mb MB] [--bin PATH] [--docs] [--max-cpu R] [--max-mem R] [--scenes DIR]" >&2; exit 2 ;;
  esac
  shift
done

# WORK, COMMIT and our own copy of the binary, $WORK/tscn-merge.
source scripts/lib-bench-bin.sh
if [[ -z "$SCENES" ]]; then
  SCENES="$WORK/scenes"
  python3 scripts/gen-merge-scenes.py "$SCENES" --mb "$MB" >&2
fi

python3 - "$WORK/tscn-merge" "$SCENES" "$RUNS" "$MAX_CPU" "$MAX_MEM" "$DOCS" "$ROOT/docs/benchmarks.md" "$COMMIT" <<'PY'
import datetime, os, statistics, sys

BIN, SCENES, RUNS, MAX_CPU, MAX_MEM, DOCS, DOCFILE, COMMIT = sys.argv[1:9]
RUNS, MAX_CPU, MAX_MEM, DOCS = int(RUNS), float(MAX_CPU), float(MAX_MEM), DOCS == "1"


def measure(argv):
    """(CPU seconds, peak RSS in KB, exit code) of one child, output discarded."""
    null = os.open(os.devnull, os.O_RDWR)
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    os.close(null)
    _, status, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


failures = []


def guard(job, tools_of):
    """Run each scene's tools alternately; print the rows and ratios; return the cells."""
    cells = []
    print("%-11s %-10s %9s %9s %9s %9s  %s" % (job, "tool", "CPU med", "CPU min", "CPU max", "peak MB", "CPU seconds of each run"))
    for scene in ("mesh-heavy", "node-heavy"):
        p = lambda side: os.path.join(SCENES, "%s.%s.tscn" % (scene, side))
        if not os.path.exists(p("base")):
            sys.exit("bench-guard: %s not found" % p("base"))
        tools = tools_of(p)
        runs = {t: [] for t in tools}
        for t, argv in tools.items():  # warm the page cache; not counted
            measure(argv)
        for _ in range(RUNS):
            for t, argv in tools.items():
                runs[t].append(measure(argv))
        bad = [r[2] for r in runs["tscn-merge"] if r[2] not in (0, 1)]
        if bad:
            failures.append("%s %s: tscn-merge exited with %s" % (job, scene, bad[0]))
        med = {t: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for t, v in runs.items()}
        for t, v in runs.items():
            cpus = [r[0] for r in v]
            print("%-11s %-10s %8.3fs %8.3fs %8.3fs %9.0f  %s" % (scene, t, med[t][0], min(cpus), max(cpus), med[t][1] / 1024,
                                                                " ".join("%.3f" % c for c in cpus)))
        cpu = med["tscn-merge"][0] / max(med["git"][0], 1e-9)
        mem = med["tscn-merge"][1] / max(med["git"][1], 1)
        verdict = []
        if cpu > MAX_CPU:
            verdict.append("CPU %.2fx > %.2fx" % (cpu, MAX_CPU))
        if mem > MAX_MEM:
            verdict.append("memory %.2fx > %.2fx" % (mem, MAX_MEM))
        if verdict:
            failures.append("%s %s: %s" % (job, scene, ", ".join(verdict)))
        print("%-11s %s ratio to git: CPU %.2fx (limit %.2fx), peak memory %.2fx (limit %.2fx)%s"
              % (scene, job, cpu, MAX_CPU, mem, MAX_MEM, "" if not verdict else "  <-- FAIL"))
        cells.append("%.2fx | %.2fx" % (cpu, mem))
    print()
    return cells


merge_cells = guard("merge", lambda p: {
    "git": ["git", "merge-file", "-p", "--diff3", p("ours"), p("base"), p("theirs")],
    "tscn-merge": [BIN, "merge", "-q", p("base"), p("ours"), p("theirs")],
})
# The semantic diff of base and ours against git's line diff of the same two files.
diff_cells = guard("diff", lambda p: {
    "git": ["git", "diff", "--no-index", "--no-color", "--no-ext-diff", p("base"), p("ours")],
    "tscn-merge": [BIN, "diff", "--color", "never", p("base"), p("ours")],
})

load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def row(cells):
    return "| %s | %s | %s | %s | %d | %d | %s |" % (now, COMMIT, cells[0], cells[1], RUNS, len(os.sched_getaffinity(0)), load)


def append(text, name, heading, line):
    """`text` with `line` added to the table between the `name` markers (made if absent)."""
    begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
    if begin in text and end in text:
        at = text.index(end)
        return text[:at].rstrip("\n") + "\n" + line + "\n" + text[at:]
    return text.rstrip("\n") + "\n\n" + "\n".join(heading + [
        begin,
        "| UTC | commit | mesh-heavy CPU | mesh-heavy memory | node-heavy CPU | node-heavy memory | runs | cores | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        line, end, ""])


lines = {"merge": row(merge_cells), "diff": row(diff_cells)}
if DOCS:
    text = open(DOCFILE).read() if os.path.exists(DOCFILE) else "# Benchmarks\n"
    text = append(text, "bench-guard", [
        "## Guard history (`scripts/bench-guard.sh`)", "",
        "Median CPU (user + system) and median peak memory of tscn-merge over git merge-file's,",
        "the two tools run alternately on the same generated scenes.", ""], lines["merge"])
    text = append(text, "bench-guard-diff", [
        "### `diff` (base against ours, against `git diff --no-index`)", ""], lines["diff"])
    with open(DOCFILE, "w") as f:
        f.write(text)
    print("appended to %s" % DOCFILE, file=sys.stderr)
print("history lines for docs/benchmarks.md (mesh-heavy CPU | memory | node-heavy CPU | memory):")
print("merge: " + lines["merge"])
print("diff:  " + lines["diff"])
if failures:
    print("bench-guard: FAILED: " + "; ".join(failures))
    sys.exit(1)
print("bench-guard: ok")
PY
