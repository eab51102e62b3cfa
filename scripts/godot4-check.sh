#!/usr/bin/env bash
# A native Godot 4 on the shared sets, through `tscn-merge check --godot` (docs/engine.md,
# "A native Godot 4"; the figures are docs/numbers.md's native rows).
#
#   scripts/godot4-check.sh corpus   every Godot 4 file of ../shared/corpus: loaded / total
#   scripts/godot4-check.sh merges   every merges-modern scenario the binary merges clean:
#                                    the output loads wherever ours and theirs load
#
# The engine: $GODOT4, else /opt/godot4/bin/godot4 (bash scripts/install-godot4.sh). One
# engine start per set. Exit 0 when every output whose inputs load also loads (corpus:
# when the engine ran), 1 otherwise, 2 when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:-}
shared=${TSCN_SHARED:-../shared}
godot=${GODOT4:-/opt/godot4/bin/godot4}
[[ -x $godot ]] || { echo "godot4-check: no $godot (bash scripts/install-godot4.sh, or set GODOT4)" >&2; exit 2; }
[[ -d $shared/corpus ]] || { echo "godot4-check: no $shared (set TSCN_SHARED)" >&2; exit 2; }
cargo build --release --quiet --bin tscn-merge
bin="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/tscn-merge"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

case $set_name in
  corpus)
    mapfile -t files < <(awk -F'\t' 'NR > 1 && ($6 == 3 || $6 == 4) { print $9 }' "$shared/corpus/INDEX.tsv")
    status=0
    (cd "$shared/corpus" && "$bin" check -q --godot "$godot" "${files[@]}") >"$work/out.txt" 2>&1 || status=$?
    tail -n 1 "$work/out.txt"
    # 1: some file does not load or breaks our own check (the figures say which); 2: no run.
    [[ $status -ne 2 ]] || { cat "$work/out.txt" >&2; exit 2; }
    ;;
  merges)
    n=0
    for d in "$shared"/merges-modern/*/; do
      o=$(cd "$d" && ls ours.tscn ours.tres 2>/dev/null | head -n 1) || true
      [[ -n $o ]] || continue
      ext=${o#ours.}
      n=$((n + 1))
      mkdir -p "$work/out/$n"
      echo "$n $(basename "$d")" >>"$work/names.txt"
      cp "$d/ours.$ext" "$d/theirs.$ext" "$work/out/$n/"
      "$bin" merge -q -o "$work/out/$n/merged.$ext" "$d/base.$ext" "$d/ours.$ext" "$d/theirs.$ext" \
        >/dev/null 2>&1 || rm -f "$work/out/$n/merged.$ext"
    done
    "$bin" check --json --godot "$godot" "$work/out" >"$work/check.json" 2>/dev/null || true
    python3 - "$work" <<'PY'
import collections, json, sys
work = sys.argv[1]
names = dict(l.split(" ", 1) for l in open(f"{work}/names.txt").read().splitlines())
sides = collections.defaultdict(dict)
for f in json.load(open(f"{work}/check.json"))["files"]:
    if f.get("godot") is not None:
        *_, n, name = f["file"].split("/")
        sides[n][name.split(".")[0]] = f["godot"]
clean = {n: s for n, s in sides.items() if "merged" in s}
judged = {n: s for n, s in clean.items() if s["ours"]["loaded"] and s["theirs"]["loaded"]}
bad = [n for n, s in judged.items() if not s["merged"]["loaded"]]
print(f"godot4 merges-modern: {len(names)} scenarios, {len(clean)} merged clean; "
      f"{len(judged) - len(bad)} of {len(judged)} outputs whose ours and theirs load also load "
      f"({len(clean) - len(judged)} have an input that does not load)")
for n in sorted(set(clean) - set(judged), key=int):
    why = next((m for s in ("ours", "theirs") for m in clean[n][s]["messages"][:1]
                if not clean[n][s]["loaded"]), "")
    print(f"  input does not load: {names[n]}: {why[:120]}")
for n in bad:
    print(f"  OUTPUT DOES NOT LOAD: {names[n]}: {clean[n]['merged']['messages'][:1]}")
sys.exit(1 if bad else 0)
PY
    ;;
  *) echo "usage: $0 corpus|merges" >&2; exit 2 ;;
esac
