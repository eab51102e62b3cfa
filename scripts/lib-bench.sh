# Shared set-up of the benchmark scripts, sourced by them (not run alone): strict mode,
# the repository root as the working folder, a release build, and $WORK, a temporary
# folder removed on exit that holds our own copy of the binary, $BIN (the target dir
# may be shared with other worktrees, whose builds would replace it mid-run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cargo build --release --quiet
BIN="$WORK/tscn-merge"
cp "$CARGO_TARGET_DIR/release/tscn-merge" "$BIN"
