# The binary a guard script measures, sourced by bench-guard.sh and bench-gdmerge.sh (not
# run alone): with BIN empty, this checkout's release build, labelled by its commit (a
# `+` for uncommitted changes); else BIN as given, labelled by its file name (it need not
# be this checkout's build). Sets WORK, a temporary folder removed on exit, and COMMIT,
# and copies the binary to $WORK/tscn-merge: the target dir may be shared with a build
# running beside the script.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  COMMIT="$COMMIT+"  # uncommitted changes
fi
if [[ -z "$BIN" ]]; then
  cargo build --release --quiet --bin tscn-merge
  BIN="${CARGO_TARGET_DIR:-target}/release/tscn-merge"
else
  COMMIT="$(basename "$BIN")"
fi
cp "$BIN" "$WORK/tscn-merge"
