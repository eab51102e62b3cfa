#!/usr/bin/env bash
# Fuzz the merge for SECONDS (default 60): random corpus files with generated edits
# (the laws), hostile mutations and real history triples, in a release build.
# Exit 1 on any failure; failing inputs go to $FUZZ_OUT (default target/fuzz-failures).
# FUZZ_SEED=<n> replays a run.
#   scripts/fuzz.sh 60        # what CI runs
set -euo pipefail
secs="${1:-60}"
cd "$(dirname "$0")/.."
cargo build --quiet --release --example fuzz_merge
exec "${CARGO_TARGET_DIR:-target}/release/examples/fuzz_merge" "$secs"
