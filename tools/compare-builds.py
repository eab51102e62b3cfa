#!/usr/bin/env python3
"""Two or more builds of tscn-merge side by side: same output, time and memory.

    tools/compare-builds.py SCENES SHARED NAME=BIN NAME=BIN... [--runs N]

Measures the choice of a dependency (issue 35: our Fx hash against rustc-hash, our small
string against compact_str) by building the binary once per choice and running the
builds alternately on the same inputs, because the machine may be loaded:

1. every scenario of SHARED/merges and SHARED/merges-modern, `merge --explain=json`:
   standard output, standard error and exit code must be the same bytes for every build
   (a hash order or a string type must never show in the output);
2. the generated scenes in SCENES (`scripts/gen-merge-scenes.py SCENES`: mesh-heavy,
   node-heavy), `merge -q`: one untimed run of each build, then N rounds (default 7) in
   which every build runs once, in turn. Each run is one child measured by wait4(2): wall
   time, CPU (user + system) and peak resident set. Medians are printed, with the minima.

Not part of CI: a measuring program, run by hand (docs/architecture.md quotes it).
"""
import os
import statistics
import subprocess
import sys
import time


def measure(argv):
    """(wall s, CPU s, peak RSS KB, exit code) of one child, output discarded."""
    null = os.open(os.devnull, os.O_RDWR)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    os.close(null)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - start
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def sides(d):
    """base, ours, theirs file names of a scenario folder."""
    out = []
    for s in ("base", "ours", "theirs"):
        for ext in ("tscn", "tres", "escn"):
            if os.path.exists(os.path.join(d, "%s.%s" % (s, ext))):
                out.append("%s.%s" % (s, ext))
                break
    return out if len(out) == 3 else None


def same_output(shared, builds):
    """Scenarios compared, and the names of those where some build differs."""
    n, differ = 0, []
    for group in ("merges", "merges-modern"):
        root = os.path.join(shared, group)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            s = sides(d) if os.path.isdir(d) else None
            if not s:
                continue
            n += 1
            outs = set()
            for _, b in builds:
                r = subprocess.run([b, "merge", "--explain=json"] + s, cwd=d, capture_output=True)
                outs.add((r.stdout, r.stderr, r.returncode))
            if len(outs) != 1:
                differ.append("%s/%s" % (group, name))
    return n, differ


def main():
    args = sys.argv[1:]
    runs = 7
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 4:
        sys.exit(__doc__)
    scenes, shared = args[0], args[1]
    builds = [tuple(a.split("=", 1)) for a in args[2:]]
    n, differ = same_output(shared, builds)
    print("shared merges: %d compared, %d differ between builds %s" % (n, len(differ), " ".join(differ)))
    print("load average before timing: %s" % open("/proc/loadavg").read().split()[:3])
    print("%-11s %-10s %8s %8s %8s %8s %8s" % ("scene", "build", "wall med", "wall min", "CPU med", "CPU min", "peak MB"))
    for scene in ("mesh-heavy", "node-heavy"):
        p = lambda side: os.path.join(scenes, "%s.%s.tscn" % (scene, side))
        argv = {name: [b, "merge", "-q", p("base"), p("ours"), p("theirs")] for name, b in builds}
        for a in argv.values():
            measure(a)
        got = {name: [] for name, _ in builds}
        for _ in range(runs):
            for name, a in argv.items():
                got[name].append(measure(a))
        for name, v in got.items():
            codes = {r[3] for r in v}
            print("%-11s %-10s %7.3fs %7.3fs %7.3fs %7.3fs %8.1f%s" % (
                scene, name, statistics.median(r[0] for r in v), min(r[0] for r in v),
                statistics.median(r[1] for r in v), min(r[1] for r in v),
                statistics.median(r[2] for r in v) / 1024,
                "" if codes <= {0, 1} else "  exit codes %s" % sorted(codes)))
    print("load average after timing: %s" % open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
