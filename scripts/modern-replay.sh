#!/usr/bin/env bash
# A proxy for real merges of modern Godot (4.5-4.7) projects, built from the shared corpus
# (issue 17's bar is measured on merges outside this repository, which we do not have).
#
# The corpus holds each file at its repository's head and at three older commits. For
# every repository the commits are put in time order by how many files they share with
# head (the more, the newer: INDEX.tsv has no dates). For every path with at least three
# distinct Godot 4 versions, every triple older < mid < newer of them is merged as
# (base = older, ours = mid, theirs = newer): both sides are real edits of base, and
# theirs also holds ours' later history, so a line both changed is a true conflict for a
# three-way merge (git's and ours alike) even though history says "newer wins".
# "modern" triples are those where a version carries `unique_id=` (Godot 4.6).
#
# Prints, for all Godot 4 triples and for the modern ones: how many triples, how many
# `git merge-file` conflicts, how many of those tscn-merge merges clean and valid
# (`check`), how many of those are the newer version's scene (`tscn-merge diff` finds no
# change), and how many git-clean merges come out a different scene from git's.
#   scripts/modern-replay.sh            # builds, then replays (a few minutes)
#   REPLAY_LIST=1 scripts/modern-replay.sh   # also lists the triples behind each count
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release
shared="${TSCN_SHARED:-../shared}"
[ -f "$shared/corpus/INDEX.tsv" ] || shared=/work/shared
exec python3 - "$shared" "${CARGO_TARGET_DIR:-target}/release/tscn-merge" <<'PY'
import collections, os, subprocess, sys, tempfile

shared, tool = sys.argv[1], os.path.abspath(sys.argv[2])
listing = os.environ.get("REPLAY_LIST", "0") not in ("", "0")
corpus = os.path.join(shared, "corpus")
rows = []
with open(os.path.join(corpus, "INDEX.tsv"), encoding="utf-8") as f:
    head = f.readline().rstrip("\n").split("\t")
    for line in f:
        if line.strip():
            rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))

# Time order of each repository's commits: head last, the others by files shared with it.
at_head = {(r["repo"], r["path"]): r["blob"] for r in rows if r["kind"] == "head"}
shared_with_head = collections.Counter()
for r in rows:
    if r["kind"] == "hist" and at_head.get((r["repo"], r["path"])) == r["blob"]:
        shared_with_head[(r["repo"], r["commit"])] += 1
def age(r):
    if r["kind"] == "head":
        return (1, 0)
    return (0, shared_with_head[(r["repo"], r["commit"])], r["commit"])

by_path = collections.defaultdict(list)
for r in rows:
    if r["format"] in ("3", "4"):
        by_path[(r["repo"], r["path"])].append(r)

def read(r):
    with open(os.path.join(corpus, r["stored_as"]), "rb") as f:
        return f.read()

def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).returncode

stats = {k: collections.Counter() for k in ("godot4", "modern")}
lists = {k: collections.defaultdict(list) for k in ("godot4", "modern")}
tmp = tempfile.mkdtemp(prefix="modern-replay-")
names = [os.path.join(tmp, n) for n in ("base", "ours", "theirs", "git", "out")]
for key in sorted(by_path):
    versions, seen = [], set()
    for r in sorted(by_path[key], key=age):
        if r["blob"] not in seen:
            seen.add(r["blob"])
            versions.append(r)
    for i in range(len(versions)):
        for j in range(i + 1, len(versions)):
            for k in range(j + 1, len(versions)):
                triple = [read(versions[x]) for x in (i, j, k)]
                for name, data in zip(names, triple):
                    with open(name, "wb") as f:
                        f.write(data)
                base, ours, theirs, git, out = names
                with open(git, "wb") as g:
                    rc = subprocess.run(["git", "merge-file", "-p", "--diff3", ours, base, theirs],
                                        stdout=g, stderr=subprocess.DEVNULL).returncode
                if rc < 0 or rc > 127:
                    continue
                ours_rc = run([tool, "merge", "-q", "-o", out, base, ours, theirs])
                label = f"{key[0]} {key[1]} ({versions[i]['commit'][:7]} {versions[j]['commit'][:7]} {versions[k]['commit'][:7]})"
                sets = ["godot4"] + (["modern"] if any(b"unique_id=" in t for t in triple) else [])
                if rc > 0:
                    clean_valid = ours_rc == 0 and run([tool, "check", out]) == 0
                    newer = clean_valid and run([tool, "diff", theirs, out]) == 0
                    facts = ["git_conflicts"] + (["clean_valid"] if clean_valid else []) \
                        + (["newer_scene"] if newer else []) + (["still_conflicts"] if ours_rc == 1 else [])
                else:
                    differs = ours_rc != 0 or run([tool, "diff", git, out]) != 0
                    facts = ["git_clean"] + (["differs_from_git"] if differs else [])
                for s in sets:
                    stats[s]["triples"] += 1
                    for fact in facts:
                        stats[s][fact] += 1
                        lists[s][fact].append(label)

print("modern replay (a proxy: base = older, ours = mid, theirs = newer version of one corpus file)")
print(f"{'':<10}{'triples':>9}{'git conflicts':>15}{'tscn-merge clean+valid':>24}{'= newer scene':>15}{'git clean':>11}{'differs from git':>18}")
for s in ("godot4", "modern"):
    c = stats[s]
    print(f"{s:<10}{c['triples']:>9}{c['git_conflicts']:>15}{c['clean_valid']:>24}{c['newer_scene']:>15}{c['git_clean']:>11}{c['differs_from_git']:>18}")
if listing:
    for s in ("godot4", "modern"):
        for fact in ("still_conflicts", "differs_from_git"):
            for label in lists[s][fact]:
                print(f"{s} {fact}: {label}")
PY
