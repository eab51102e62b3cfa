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
# change), and how many git-clean merges come out a different scene from git's (a git
# result that `check` finds broken, e.g. a duplicate ext_resource both sides added, is
# counted apart: "git broken").
#
# Every git conflict tscn-merge does not merge clean and valid is sorted by its
# `--explain=json` conflict reports: "true" when every report is a value both sides
# changed differently from base (or a part one side deleted and the other changed, or
# both added differently); "gap" when a report has a side equal to base or both sides
# equal (nothing to conflict on), when the structural merge gave way to the line merge,
# or when the clean result is not valid. The summary counts triples per class and
# reports per kind (where: node / sub_resource / header ...; what: the property).
#   scripts/modern-replay.sh            # builds, then replays (a few minutes)
#   REPLAY_LIST=1 scripts/modern-replay.sh   # also lists the triples behind each count
#   REPLAY_WHY=1 scripts/modern-replay.sh    # also prints each unresolved triple's reports
#   REPLAY_TOOL=/path/to/tscn-merge         # replay another build (no cargo build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${REPLAY_TOOL:-}" ] || cargo build --quiet --release
shared="${TSCN_SHARED:-../shared}"
[ -f "$shared/corpus/INDEX.tsv" ] || shared=/work/shared
exec python3 - "$shared" "${REPLAY_TOOL:-${CARGO_TARGET_DIR:-target}/release/tscn-merge}" <<'PY'
import collections, json, os, re, subprocess, sys, tempfile

shared, tool = sys.argv[1], os.path.abspath(sys.argv[2])
listing = os.environ.get("REPLAY_LIST", "0") not in ("", "0")
why = os.environ.get("REPLAY_WHY", "0") not in ("", "0")
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

def report_kind(c):
    """Whether one conflict report is a true conflict, and what kind of part it is about."""
    where = c["location"].split(" ")[0]
    what = c.get("property") or "(whole part)"
    if what.startswith("metadata/") or what.startswith("theme_override"):
        what = what.split("/")[0] + "/*"
    elif "/" in what and not what.startswith("("):
        what = what.split("/")[0] + "/N/*" if what.split("/")[1].isdigit() else what
    b, o, t = c.get("base"), c.get("ours"), c.get("theirs")
    if where == "whole":
        return "gap", f"{where}: {t}"
    # A long value is shown cut: two cut values that read alike may still differ.
    cut = any(v is not None and "\u2026" in v for v in (b, o, t))
    if b is None and o is not None and t is not None:
        return "true", f"{where} {what}: both added differently"
    if o is None or t is None or "deleted" in (o, t):
        return "true", f"{where} {what}: deleted / changed"
    if o == t and not cut:
        return "gap", f"{where} {what}: both sides alike"
    if (o == b or t == b) and not cut:
        return "gap", f"{where} {what}: one side is base"
    return "true", f"{where} {what}: both changed differently"

def classify(base, ours, theirs, out, clean):
    """Why a git conflict did not come out clean and valid: ("true"|"gap", [reasons])."""
    p = subprocess.run([tool, "merge", "-q", "--explain=json", "-o", out, base, ours, theirs],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        doc = json.loads(p.stderr.decode("utf-8", "replace"))
    except ValueError:
        return "gap", ["no explain document"]
    if clean:
        c = subprocess.run([tool, "check", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        first = c.stdout.decode("utf-8", "replace").strip().splitlines()[:1]
        return "gap", ["clean but invalid: " + (first[0].split(": ", 1)[-1] if first else "?")]
    kinds = [report_kind(c) for c in doc.get("conflict_reports", [])]
    if doc.get("method") == "line":
        reason = next((d.get("reason", "") for d in doc.get("decisions", [])
                       if d.get("kind") == "fell_back"), "")
        reason = re.sub(r"\d+", "N", re.sub(r'"[^"]*"', '"..."', reason))
        kinds.append(("gap", "line merge: " + reason.split(" (at this point")[0][:110]))
    if not kinds:
        return "gap", ["conflict without report"]
    cls = "gap" if any(k == "gap" for k, _ in kinds) else "true"
    return cls, [r for _, r in kinds]

stats = {k: collections.Counter() for k in ("godot4", "modern")}
reasons = {k: collections.Counter() for k in ("godot4", "modern")}
whys = []
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
                found = []
                if rc > 0:
                    clean_valid = ours_rc == 0 and run([tool, "check", out]) == 0
                    newer = clean_valid and run([tool, "diff", theirs, out]) == 0
                    facts = ["git_conflicts"] + (["clean_valid"] if clean_valid else []) \
                        + (["newer_scene"] if newer else []) + (["still_conflicts"] if ours_rc == 1 else [])
                    if not clean_valid:
                        cls, found = classify(base, ours, theirs, out, ours_rc == 0)
                        facts.append(cls)
                        whys.append((label, cls, found))
                elif run([tool, "check", git]) != 0:
                    facts = ["git_clean", "git_broken"]
                    if ours_rc == 0 and run([tool, "check", out]) == 0:
                        facts.append("broken_fixed")
                else:
                    differs = ours_rc != 0 or run([tool, "diff", git, out]) != 0
                    facts = ["git_clean"] + (["differs_from_git"] if differs else [])
                for s in sets:
                    stats[s]["triples"] += 1
                    for fact in facts:
                        stats[s][fact] += 1
                        lists[s][fact].append(label)
                    for r in set(found):
                        reasons[s][r] += 1

print("modern replay (a proxy: base = older, ours = mid, theirs = newer version of one corpus file)")
print(f"{'':<10}{'triples':>9}{'git conflicts':>15}{'tscn-merge clean+valid':>24}{'= newer scene':>15}{'git clean':>11}{'differs from git':>18}")
for s in ("godot4", "modern"):
    c = stats[s]
    print(f"{s:<10}{c['triples']:>9}{c['git_conflicts']:>15}{c['clean_valid']:>24}{c['newer_scene']:>15}{c['git_clean']:>11}{c['differs_from_git']:>18}")
print()
print(f"{'':<10}{'unresolved':>11}{'true':>6}{'gap':>5}{'git clean broken':>18}{'of those ours valid':>21}")
for s in ("godot4", "modern"):
    c = stats[s]
    unresolved = c["git_conflicts"] - c["clean_valid"]
    print(f"{s:<10}{unresolved:>11}{c['true']:>6}{c['gap']:>5}{c['git_broken']:>18}{c['broken_fixed']:>21}")
    nontrue = c["git_conflicts"] - c["true"]
    if nontrue:
        print(f"{'':<10}non-true git conflicts resolved clean+valid: {c['clean_valid']} of {nontrue} ({100 * c['clean_valid'] // nontrue}%)")
for s in ("godot4", "modern"):
    print(f"{s} triples per conflict kind (a triple counts once per kind):")
    for r, n in reasons[s].most_common():
        print(f"  {n:>4}  {r}")
if why:
    for label, cls, found in whys:
        print(f"{cls}: {label}")
        for r in found:
            print(f"    {r}")
if listing:
    for s in ("godot4", "modern"):
        for fact in ("still_conflicts", "gap", "differs_from_git", "git_broken"):
            for label in lists[s][fact]:
                print(f"{s} {fact}: {label}")
PY
