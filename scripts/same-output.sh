#!/usr/bin/env bash
# Prove that a change kept behaviour: run the binary built at BASE_REV and the one built
# from this checkout on the same inputs and compare what they print.
#
#   scripts/same-output.sh BASE_REV [--fuzz N] [--no-big]
#   OLD_BIN=path/to/tscn-merge scripts/same-output.sh BASE_REV ...  (no build of BASE_REV)
#   NEW_BIN=path: compare with that binary instead of this checkout's build (the fuzz
#   triples are still written by this checkout's examples/fuzz_merge.rs)
#
# Compared, per input: standard output (the merged text or the diff), exit code, and
# standard error (which holds `--explain=json` and the conflict report):
#  - `merge --explain=json` on every scenario of ../shared/merges, merges-modern and
#    config-merges (base, ours, theirs), in
#    every conflict style both binaries accept (`--style merge|diff3|zdiff3`; a binary
#    without `--style` is run once, in its default);
#  - the same on the two generated 20 MB scenes (scripts/gen-merge-scenes.py), unless
#    --no-big;
#  - the same on N (default 300) triples of each of three fixed fuzz seeds, written by
#    this checkout's `examples/fuzz_merge.rs` with FUZZ_DUMP (law edits, hostile
#    mutations, history triples);
#  - `diff --format json OLD NEW` on every consecutive pair of corpus files that share a
#    repository and path (../shared/corpus/INDEX.tsv order);
#  - `diff` (the text report) of base against ours and against theirs of every real and
#    modern merge scenario and of the big scenes.
# Prints one line per group and every difference; exit 0 when all are identical, 1 if not.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
BASE_REV="${1:?usage: $0 BASE_REV [--fuzz N] [--no-big]}"
shift
FUZZ_N=300
BIG=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fuzz) FUZZ_N="$2"; shift ;;
    --no-big) BIG=0 ;;
    *) echo "usage: $0 BASE_REV [--fuzz N] [--no-big]" >&2; exit 2 ;;
  esac
  shift
done

shared="${TSCN_SHARED:-}"
if [[ -z "$shared" ]]; then
  for cand in "$ROOT/../shared" "$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")/../shared"; do
    if [[ -f "$cand/merges/SUMMARY.tsv" ]]; then shared="$(cd "$cand" && pwd)"; break; fi
  done
fi
[[ -n "$shared" && -f "$shared/merges/SUMMARY.tsv" ]] || { echo "same-output: ../shared not found (set TSCN_SHARED)" >&2; exit 2; }

WORK="$(mktemp -d)"
cleanup() {
  git -C "$ROOT" worktree remove --force "$WORK/base-tree" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"

if [[ -n "${OLD_BIN:-}" ]]; then
  # A binary already built at BASE_REV (saves a build): OLD_BIN=path.
  echo "using $OLD_BIN as $BASE_REV; building this checkout..." >&2
  cp "$OLD_BIN" "$WORK/old"
else
  echo "building $BASE_REV and this checkout..." >&2
  git -C "$ROOT" worktree add --quiet --detach "$WORK/base-tree" "$BASE_REV"
  # Its own target dir: built into ours, the base binary would take the place of this
  # checkout's, and cargo (whose sources here did not change) would call that one fresh.
  (cd "$WORK/base-tree" && CARGO_TARGET_DIR="$TARGET/same-output-base" cargo build --release --quiet --bin tscn-merge)
  cp "$TARGET/same-output-base/release/tscn-merge" "$WORK/old"
fi
cargo build --release --quiet --bin tscn-merge --example fuzz_merge
cp "${NEW_BIN:-$TARGET/release/tscn-merge}" "$WORK/new"

for seed in 1 2 3; do
  FUZZ_DUMP="$WORK/fuzz/$seed" FUZZ_SEED="$seed" TSCN_SHARED="$shared" \
    "$TARGET/release/examples/fuzz_merge" "$FUZZ_N" 2>/dev/null >/dev/null
done
if [[ "$BIG" == 1 ]]; then
  python3 scripts/gen-merge-scenes.py "$WORK/big" --mb 20 >/dev/null 2>&1
fi

python3 - "$WORK" "$shared" <<'PY'
import os, subprocess, sys
work, shared = sys.argv[1], sys.argv[2]
OLD, NEW = os.path.join(work, "old"), os.path.join(work, "new")

def run(binary, args):
    p = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr

def styles(binary):
    _, out, _ = run(binary, ["merge", "--help"])
    return b"--style" in out

both_styles = styles(OLD) and styles(NEW)
STYLES = [["--style", s] for s in ("merge", "diff3", "zdiff3")] if both_styles else [[]]
diffs = []

errors = {}

def compare(group, name, args):
    o, n = run(OLD, args), run(NEW, args)
    if n[0] == 2:
        errors[group] = errors.get(group, 0) + 1
    if o == n:
        return True
    what = [w for w, a, b in zip(("exit code", "stdout", "stderr"), o, n) if a != b]
    diffs.append(f"{group}: {name}: {', '.join(what)} differ (exit {o[0]} -> {n[0]})")
    return False

def merge_group(group, triples):
    """triples: (name, [base, ours, theirs] paths)."""
    same = total = 0
    for name, paths in triples:
        for st in STYLES:
            total += 1
            args = ["merge", "--explain=json"] + st + paths
            same += compare(group, f"{name} {' '.join(st)}".strip(), args)
    failed = f" (the new binary exited 2 on {errors[group]})" if errors.get(group) else ""
    print(f"{group}: {same}/{total} identical{failed}")

merges = os.path.join(shared, "merges")
styles_note = "styles merge, diff3, zdiff3" if both_styles else "default style (no --style in one binary)"
print(f"merge: {styles_note}")
def sides(d):
    """base, ours and theirs of a scenario, whatever their extension (base.tscn, base):
    a scenario without all three stops the run, since two binaries failing alike on
    missing files would read as "identical"."""
    names = sorted(os.listdir(d))
    out = []
    for s in ("base", "ours", "theirs"):
        f = next((f for f in names if f == s or f.startswith(s + ".")), None)
        if f is None:
            sys.exit(f"same-output: {d} has no {s} file")
        out.append(os.path.join(d, f))
    return out

def scenarios(folder):
    d = os.path.join(shared, folder)
    return [n for n in sorted(os.listdir(d)) if os.path.isdir(os.path.join(d, n))] if os.path.isdir(d) else []

def config_sides(d):
    """base/ours/theirs of a config merge keep their extension (base.godot, base.import)."""
    names = sorted(os.listdir(d))
    pick = lambda s: next((os.path.join(d, f) for f in names if f.split(".")[0] == s and "." in f), None)
    return [pick(s) for s in ("base", "ours", "theirs")]

merge_group("real merges", [(n, sides(os.path.join(merges, n))) for n in scenarios("merges")])
merge_group("modern merges", [(n, sides(os.path.join(shared, "merges-modern", n))) for n in scenarios("merges-modern")])
configs = [(n, config_sides(os.path.join(shared, "config-merges", n))) for n in scenarios("config-merges")]
merge_group("config merges", [(n, s) for n, s in configs if all(s)])
big = os.path.join(work, "big")
if os.path.isdir(big):
    kinds = sorted({f.split(".")[0] for f in os.listdir(big) if f.endswith(".base.tscn")})
    merge_group("big scenes", [(k, [os.path.join(big, f"{k}.{s}.tscn") for s in ("base", "ours", "theirs")]) for k in kinds])
fuzz = os.path.join(work, "fuzz")
for seed in sorted(os.listdir(fuzz)):
    root = os.path.join(fuzz, seed)
    merge_group(f"fuzz seed {seed}", [(f"{seed}/{n}", sides(os.path.join(root, n))) for n in sorted(os.listdir(root))])

index = os.path.join(shared, "corpus", "INDEX.tsv")
rows = [l.rstrip("\n").split("\t") for l in open(index, encoding="utf-8")]
head, rows = rows[0], rows[1:]
c_repo, c_path, c_stored = head.index("repo"), head.index("path"), head.index("stored_as")
groups = {}
for r in rows:
    groups.setdefault((r[c_repo], r[c_path]), []).append(os.path.join(shared, "corpus", r[c_stored]))
same = total = 0
for key in sorted(groups):
    files = groups[key]
    for a, b in zip(files, files[1:]):
        total += 1
        same += compare("corpus diff", f"{os.path.basename(a)} -> {os.path.basename(b)}", ["diff", "--format", "json", a, b])
print(f"corpus diff pairs: {same}/{total} identical")
# The text report (values cut to a line's budget) of base against each side.
pairs = [(n, sides(os.path.join(merges, n))) for n in scenarios("merges")]
pairs += [(n, sides(os.path.join(shared, "merges-modern", n))) for n in scenarios("merges-modern")]
if os.path.isdir(big):
    pairs += [(k, [os.path.join(big, f"{k}.{s}.tscn") for s in ("base", "ours", "theirs")]) for k in kinds]
same = total = 0
for name, (base, ours, theirs) in pairs:
    for side in (ours, theirs):
        total += 1
        same += compare("scenario diff", f"{name} {os.path.basename(side)}", ["diff", "--color", "never", base, side])
print(f"scenario text diffs: {same}/{total} identical")
for d in diffs[:50]:
    print("DIFFERENT", d)
if len(diffs) > 50:
    print(f"... and {len(diffs) - 50} more")
print("same output: yes" if not diffs else f"same output: NO ({len(diffs)} differences)")
sys.exit(1 if diffs else 0)
PY
