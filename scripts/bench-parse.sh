#!/usr/bin/env bash
# Parse throughput of tscn-merge on the shared corpus and on two generated ~20 MB scenes
# (mesh-heavy, node-heavy), beside `wc -l` on the same bytes.
#
#   scripts/bench-parse.sh [OUT_DIR]      (default OUT_DIR: target/bench-scenes)
#
# Needs python3 (the generator) and ../shared/corpus (or TSCN_SHARED); a missing corpus
# only skips the corpus row. Builds the `bench_parse` example in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${CARGO_TARGET_DIR:-target}/bench-scenes}"
shared="${TSCN_SHARED:-../shared}"

python3 scripts/gen-scenes.py "$out"
cargo build --release --quiet --example bench_parse
bin="${CARGO_TARGET_DIR:-target}/release/examples/bench_parse"

args=()
if [[ -f "$shared/corpus/INDEX.tsv" ]]; then
    args+=(--corpus "$shared/corpus")
else
    echo "note: $shared/corpus not found: skipping the corpus row" >&2
fi
echo "machine: $(nproc) cores, $(uname -m), $(rustc --version)"
"$bin" "${args[@]}" "$out/mesh-heavy.tscn" "$out/node-heavy.tscn"
