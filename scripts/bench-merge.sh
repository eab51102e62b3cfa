#!/usr/bin/env bash
# Benchmark `tscn-merge merge` against `git merge-file -p --diff3`:
#  1. replays the shared real merges (../shared/merges, or $TSCN_SHARED/merges) through both
#     tools and counts outcomes against what the human committed: exact, same scene (per
#     `tscn-merge diff`), different, broken (fails `tscn-merge check` where the human result
#     passes), conflict, error; plus the median time per scenario (median of 3 runs each);
#  2. merges two generated ~20 MB scenes (mesh-heavy, node-heavy; scripts/gen-merge-scenes.py)
#     where both sides changed: median of 5 runs each with the output captured, and median
#     of 9 alternating runs with the output discarded, and the peak memory (max RSS) of one
#     run of each tool (`/usr/bin/time -f %M` when present, else getrusage of a child).
# Aim (issue "Structural three-way merge driver"): at most 3x git's time on typical scenes,
# at most 1.5x on each big one. Not a test: prints figures and never fails on them.
#
#   scripts/bench-merge.sh [--no-docs] [--mb N]
#
# Writes its section of docs/benchmarks.md (between the bench-merge markers) unless --no-docs.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WRITE_DOCS=1
MB=20
while [[ $# -gt 0 ]]; do
  case "$1" in
    --no-docs) WRITE_DOCS=0 ;;
    --mb) MB="$2"; shift ;;
    *) echo "usage: $0 [--no-docs] [--mb N]" >&2; exit 2 ;;
  esac
  shift
done

# The shared material: $TSCN_SHARED, else beside this checkout, else beside the main
# checkout (a git worktree may live elsewhere).
shared="${TSCN_SHARED:-}"
if [[ -z "$shared" ]]; then
  for cand in "$ROOT/../shared" "$(dirname "$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo /nonexistent/x)")/../shared"; do
    if [[ -f "$cand/merges/SUMMARY.tsv" ]]; then shared="$cand"; break; fi
  done
fi
if [[ -z "$shared" || ! -f "$shared/merges/SUMMARY.tsv" ]]; then
  echo "bench-merge: shared merges not found (set TSCN_SHARED)" >&2
  exit 2
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cargo build --release --quiet
# The target dir may be shared with other worktrees: keep our own copy of the binary.
cp "${CARGO_TARGET_DIR:-target}/release/tscn-merge" "$WORK/tscn-merge"

echo "generating the big scenes (${MB} MB each)..." >&2
python3 scripts/gen-merge-scenes.py "$WORK/scenes" --mb "$MB" >&2

python3 - "$WORK/tscn-merge" "$shared/merges" "$WORK" "$WRITE_DOCS" "$ROOT/docs/benchmarks.md" <<'PY'
import datetime, os, platform, statistics, subprocess, sys, time

BIN, MERGES, WORK, WRITE_DOCS, DOCS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5]
GIT = "git merge-file"
TM = "tscn-merge"
CATS = ["exact", "same scene", "different", "broken", "conflict", "error"]


def cmd(tool, base, ours, theirs):
    if tool == GIT:
        return ["git", "merge-file", "-p", "--diff3", ours, base, theirs]
    return [BIN, "merge", "-q", base, ours, theirs]


def run(argv):
    """(seconds, exit code, stdout) of one call; both tools are run the same way."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, p.returncode, p.stdout


def run_null(argv):
    """Seconds of one call whose output is discarded."""
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def peak_kb(argv):
    """Peak resident memory (KB) of one call, output discarded: `/usr/bin/time -f %M` when
    present, else the children's getrusage in a fresh Python (ru_maxrss is the largest
    child it waited for, so each measure needs its own parent)."""
    if os.access("/usr/bin/time", os.X_OK):
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        tail = p.stderr.strip().splitlines()
        if tail and tail[-1].isdigit():
            return int(tail[-1])
    code = ("import resource, subprocess, sys\n"
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    p = subprocess.run([sys.executable, "-c", code] + argv, capture_output=True, text=True)
    return int(p.stdout.strip() or 0)


def timed(argv, n):
    runs = [run(argv) for _ in range(n)]
    return statistics.median(r[0] for r in runs), runs[0][1], runs[0][2]


def rc(argv):
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def side(d, name):
    hits = [f for f in os.listdir(d) if f.startswith(name + ".")]
    return os.path.join(d, hits[0])


# ---- 1. the real merges --------------------------------------------------------------
ids = []
with open(os.path.join(MERGES, "SUMMARY.tsv")) as f:
    head = f.readline().rstrip("\n").split("\t")
    for line in f:
        row = dict(zip(head, line.rstrip("\n").split("\t")))
        ids.append(row["id"])

counts = {t: dict.fromkeys(CATS, 0) for t in (GIT, TM)}
listed = {t: {"different": [], "broken": [], "error": []} for t in (GIT, TM)}
times = {GIT: [], TM: []}
outcomes = {GIT: {}, TM: {}}
human_ok = {}
for k, sid in enumerate(ids):
    d = os.path.join(MERGES, sid)
    base, ours, theirs, human = (side(d, n) for n in ("base", "ours", "theirs", "result"))
    ext = os.path.splitext(human)[1]
    with open(human, "rb") as f:
        human_bytes = f.read()
    for tool in (GIT, TM):
        t, code, out = timed(cmd(tool, base, ours, theirs), 3)
        times[tool].append(t)
        if tool == GIT and not 0 <= code <= 127 or tool == TM and code not in (0, 1):
            cat = "error"
        elif code != 0:
            cat = "conflict"
        elif out == human_bytes:
            cat = "exact"
        else:
            path = os.path.join(WORK, "out" + ext)  # keep the extension: format detection
            with open(path, "wb") as f:
                f.write(out)
            if sid not in human_ok:
                human_ok[sid] = rc([BIN, "check", human]) == 0
            if human_ok[sid] and rc([BIN, "check", path]) != 0:
                cat = "broken"
            elif rc([BIN, "diff", "--color", "never", path, human]) == 0:
                cat = "same scene"
            else:
                cat = "different"
        counts[tool][cat] += 1
        outcomes[tool][sid] = cat
        if cat in listed[tool]:
            listed[tool][cat].append(sid)
    print("\r  replayed %d/%d" % (k + 1, len(ids)), end="", file=sys.stderr, flush=True)
print(file=sys.stderr)

med = {t: statistics.median(times[t]) for t in times}
ratios = sorted(a / b for a, b in zip(times[TM], times[GIT]))
p90 = {t: sorted(times[t])[int(0.9 * (len(times[t]) - 1))] for t in times}

# ---- 2. the big generated scenes -----------------------------------------------------
big = []
for name in ("mesh-heavy", "node-heavy"):
    p = lambda s: os.path.join(WORK, "scenes", "%s.%s.tscn" % (name, s))
    mb = os.path.getsize(p("base")) / 1e6
    row = {"name": name, "mb": mb}
    for tool in (GIT, TM):
        t, code, out = timed(cmd(tool, p("base"), p("ours"), p("theirs")), 5)
        row[tool] = (t, code)
        if tool == TM:
            with open(os.path.join(WORK, "big.tscn"), "wb") as f:
                f.write(out)
            row["check"] = rc([BIN, "check", os.path.join(WORK, "big.tscn")])
    # Second measure: output discarded (no pipe to read: that adds the same time to both
    # tools and so flatters the ratio), the two tools alternating, median of 9.
    nulls = {GIT: [], TM: []}
    for _ in range(9):
        for tool in (GIT, TM):
            nulls[tool].append(run_null(cmd(tool, p("base"), p("ours"), p("theirs"))))
    row["null"] = {tool: statistics.median(v) for tool, v in nulls.items()}
    row["peak"] = {tool: peak_kb(cmd(tool, p("base"), p("ours"), p("theirs"))) for tool in (GIT, TM)}
    big.append(row)
    print("  %s done" % name, file=sys.stderr)

# ---- report --------------------------------------------------------------------------
def ms(s):
    return "%.1f ms" % (s * 1000) if s < 10 else "%.1f s" % s


def secs(s):
    return "%.2f s" % s


def outcome(code, tool):
    if tool == GIT:
        if not 0 <= code <= 127:
            return "error"
        return "clean" if code == 0 else "%d conflict%s" % (code, "" if code == 1 else "s")
    return {0: "clean", 1: "conflicts"}.get(code, "error %d" % code)


n = len(ids)
lines = []
lines.append("Real merges: %d scenarios from `%s`" % (n, "shared/merges"))
lines.append("")
git_clean = [s for s in ids if outcomes[GIT][s] != "conflict"]
git_confl = [s for s in ids if outcomes[GIT][s] == "conflict"]
sub = lambda subset, c: sum(1 for s in subset if outcomes[TM][s] == c)
lines.append("| outcome | git merge-file --diff3 | tscn-merge merge | tscn-merge where git is clean (%d) "
             "| tscn-merge where git conflicts (%d) |" % (len(git_clean), len(git_confl)))
lines.append("|---|---:|---:|---:|---:|")
for c in CATS:
    lines.append("| %s | %d | %d | %d | %d |" % (c, counts[GIT][c], counts[TM][c], sub(git_clean, c), sub(git_confl, c)))
lines.append("| median time per scenario (3 runs each) | %s | %s | | |" % (ms(med[GIT]), ms(med[TM])))
lines.append("| 90th percentile time | %s | %s | | |" % (ms(p90[GIT]), ms(p90[TM])))
lines.append("| total time (sum of medians) | %s | %s | | |" % (ms(sum(times[GIT])), ms(sum(times[TM]))))
lines.append("")
lines.append("tscn-merge/git: %.2fx on the median time (aim <= 3x); median per-scenario ratio %.2fx, "
             "worst %.2fx. Whole-process wall time: process start-up dominates these small files."
             % (med[TM] / med[GIT], statistics.median(ratios), ratios[-1]))
lines.append("")
lines.append("Generated big scenes (both sides changed). *Captured*: output read through a pipe, as")
lines.append("for the real merges, median of 5 runs. *Discarded*: output to /dev/null, the two tools")
lines.append("alternating, median of 9 runs (reading the pipe adds the same time to both tools, so")
lines.append("this ratio is the stricter one):")
lines.append("")
lines.append("| scene | MB | git merge-file --diff3 | tscn-merge merge | ratio | git, discarded | tscn-merge, discarded | ratio | aim |")
lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in big:
    tg, cg = r[GIT]
    tt, ct = r[TM]
    ng, nt = r["null"][GIT], r["null"][TM]
    lines.append("| %s | %.1f | %s (%s) | %s (%s, check %s) | %.2fx | %s | %s | %.2fx | <= 1.5x |"
                 % (r["name"], r["mb"], secs(tg), outcome(cg, GIT), secs(tt), outcome(ct, TM),
                    {0: "ok"}.get(r["check"], "FAILS"), tt / tg, secs(ng), secs(nt), nt / ng))
lines.append("")
lines.append("Peak memory (max RSS of one run, output discarded; aim <= 1.5x git's):")
lines.append("")
lines.append("| scene | MB | git merge-file --diff3 | tscn-merge merge | ratio |")
lines.append("|---|---:|---:|---:|---:|")
for r in big:
    pg, pt = r["peak"][GIT], r["peak"][TM]
    lines.append("| %s | %.1f | %.0f MB | %.0f MB | %.2fx |"
                 % (r["name"], r["mb"], pg / 1024, pt / 1024, pt / max(pg, 1)))
for tool in (GIT, TM):
    for c in ("different", "broken", "error"):
        if listed[tool][c]:
            lines.append("")
            lines.append("%s, %s (%d):" % (tool, c, len(listed[tool][c])))
            lines.extend("- `%s`%s" % (s, " (git: %s)" % outcomes[GIT][s] if tool == TM else "")
                         for s in listed[tool][c])

cpu = "unknown"
try:
    with open("/proc/cpuinfo") as f:
        for l in f:
            if l.startswith("model name"):
                cpu = l.split(":", 1)[1].strip()
                break
except OSError:
    pass
git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
load = open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"
facts = "Machine: %d cores (nproc), %s, %s; %s; load average %s at the end; %s UTC." % (
    len(os.sched_getaffinity(0)), cpu, platform.machine(), git_version, load,
    datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))

print()
print("\n".join(lines))
print()
print(facts)

if WRITE_DOCS:
    begin, end = "<!-- bench-merge:begin -->", "<!-- bench-merge:end -->"
    section = "\n".join([
        begin,
        "## Merge: `tscn-merge merge` vs `git merge-file`",
        "",
        "From `scripts/bench-merge.sh` (release build; each call timed as a whole process with",
        "`time.perf_counter` around `subprocess.run`, output captured the same way for both tools).",
        "Outcomes are against the result the human committed: *exact* = clean and byte-identical;",
        "*same scene* = clean, and `tscn-merge diff` finds no semantic change; *different* = clean but",
        "semantically different (the human may have reverted a side or edited further: a question,",
        "not a verdict); *broken* = clean but fails `tscn-merge check` where the human result passes.",
        "",
        facts,
        "",
    ] + lines + ["", end])
    old = open(DOCS).read() if os.path.exists(DOCS) else "# Benchmarks\n"
    if begin in old and end in old:
        new = old[: old.index(begin)] + section + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    with open(DOCS, "w") as f:
        f.write(new)
    print("wrote %s" % DOCS, file=sys.stderr)
PY
