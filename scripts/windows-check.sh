#!/usr/bin/env bash
# Windows and macOS, checked on Linux without either machine:
#
#   scripts/windows-check.sh [--no-tests] [--no-macos]
#
#  1. installs (apt-get, as root, once) Debian's rustc-web, cargo-web and rust-web-src (a
#     compiler with the source of its own standard library), mingw-w64 (the linker),
#     wine64 (to run the result) and clang (for `psm`'s assembly on macOS);
#  2. cross-builds the release `tscn-merge.exe` (and, unless --no-tests, in the same cargo
#     run the test executables of step 4) for x86_64-pc-windows-gnu with Debian's
#     cargo (`RUSTC_BOOTSTRAP=1 -Zbuild-std`: rustup cannot add targets here) into
#     target/windows, and a five-line DLL giving wine 8 the `ProcessPrng` that Rust's
#     standard library calls at start-up;
#  3. under wine: `merge` of examples/merge/, then `merge --explain=json` on every
#     scenario of ../shared/merges, each compared byte for byte (standard output,
#     standard error, exit code) with the Linux binary target/release/tscn-merge;
#  4. (unless --no-tests) runs under wine the portable part of the test
#     suite: the library's unit tests; the binary's unit tests, tests/corpus,
#     tests/merges and tests/laws (INTEGRATION below), skipping by name (SKIPS) what
#     needs a Windows git;
#  5. (unless --no-macos) `cargo check` of aarch64-apple-darwin and x86_64-apple-darwin.
#
# Nothing is cached between runs beyond target/windows (absent in a fresh clone).
# Exit 0 when everything passes, 1 on any difference or failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
start=$SECONDS
TESTS=1
MACOS=1
for a in "$@"; do
  case "$a" in
    --no-tests) TESTS=0 ;;
    --no-macos) MACOS=0 ;;
    *) echo "usage: $0 [--no-tests] [--no-macos]" >&2; exit 2 ;;
  esac
done

TARGET=x86_64-pc-windows-gnu
TDIR="$ROOT/target/windows"
WIN_OUT="$TDIR/$TARGET/release"

# Tests that cannot pass under wine, by name, each with its reason ("name|reason").
SKIPS=(
  "git::tests::changed_scene_files_three_dot|runs git, which wine has none of (a Windows git is not installable here)"
  "git::tests::changed_scene_files_two_dot_and_single|runs git (no Windows git under wine)"
  "git::tests::conflict_stages_of_a_real_merge|runs git (no Windows git under wine)"
  "git::tests::commit_counts|runs git (no Windows git under wine)"
  "git::tests::conflict_stages_of_modify_delete|runs git (no Windows git under wine)"
  "git::tests::file_replaced_by_directory|runs git (no Windows git under wine)"
  "driver::gitconfig::tests::the_snapshot_agrees_with_git_config_get|runs git config (no Windows git under wine)"
)
# The integration tests run under wine ("name|what it is"). One that does not compile for
# Windows is a failure, reported with its first errors.
INTEGRATION=(
  "bins|the command line's unit tests (src/), tests/common included"
  "corpus|the corpus round trip"
  "merges|the shared real-merge replay"
  "laws|the merge laws"
)

# ---------------------------------------------------------------- 1. packages
PKGS=(rustc-web cargo-web rust-web-src gcc-mingw-w64-x86-64 wine64 clang)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "windows-check: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's toolchain, not rustup's: its rust-web-src matches its rustc exactly, which
# -Zbuild-std needs.
DEB_CARGO=/usr/bin/cargo
RUSTC=/usr/bin/rustc
# Debian's cargo with Debian's rustc, for the cross builds only (not the Linux binary).
# Without debug info (Cargo.toml's release profile has `debug = 1` for Linux backtraces):
# nothing here reads it, and the .exe and test executables build faster and smaller.
deb_cargo() {
  RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 CARGO_TERM_COLOR=never \
    CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc "$DEB_CARGO" "$@"
}
WINE=/usr/lib/wine/wine64
echo "windows-check: $($RUSTC --version), $($DEB_CARGO --version | cut -d' ' -f1-2), $($WINE --version)"

shared="${TSCN_SHARED:-$ROOT/../shared}"
[[ -f "$shared/merges/SUMMARY.tsv" ]] || { echo "windows-check: $shared/merges not found (set TSCN_SHARED)" >&2; exit 2; }
shared="$(cd "$shared" && pwd)"
# The same folder as Windows programs under wine see it (drive Z: is /).
win_path() { printf 'Z:%s' "${1//\//\\}"; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ---------------------------------------------------------------- 2. build
phase=$SECONDS
xbuild() {
  deb_cargo "$@" --release -j2 -Zbuild-std=std,panic_abort --target "$TARGET" \
    --target-dir "$TDIR"
}
# With the tests, one build makes the test executables and the .exe (integration tests
# need the binary): the dev-dependencies change the features of shared dependencies, so
# a separate `cargo build` first would compile those a second time.
mkdir -p "$TDIR"
exes=()
built_by_tests=0
if ((TESTS)); then
  # The test executables a cargo build wrote, from its artifact messages in $1.
  test_exes() {
    grep '"profile":{[^}]*"test":true' "$1" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | sort -u
  }
  # One cargo run for the library's unit tests and every INTEGRATION entry: the test
  # crates then compile side by side (-j2) instead of one after another.
  what=(--lib)
  for t in "${INTEGRATION[@]}"; do
    name="${t%%|*}"
    if [[ "$name" == bins ]]; then what+=(--bins); else what+=(--test "$name"); fi
  done
  exes=()
  if xbuild test --no-run "${what[@]}" --message-format=json >"$TDIR/tests.json" 2>"$TDIR/tests.err"; then
    mapfile -t exes < <(test_exes "$TDIR/tests.json")
    built_by_tests=1
  else
    grep -E '^error' "$TDIR/tests.err" | head -n 5 | sed 's/^/  /' || true
    fail "the tests do not build for Windows (log: $TDIR/tests.err)"
  fi
  echo "windows-check: built ${#exes[@]} test executables and the .exe in $((SECONDS - phase)) s"
fi
EXE="$WIN_OUT/tscn-merge.exe"
((built_by_tests)) && [[ -f "$EXE" ]] || xbuild build --bin tscn-merge
echo "windows-check: built $EXE ($(($(stat -c %s "$EXE") / 1048576)) MB) in $((SECONDS - phase)) s"
cargo build --release --quiet --bin tscn-merge
LINUX="$ROOT/target/release/tscn-merge"

# Wine 8 has no bcryptprimitives.dll; Rust's std asks it for ProcessPrng at start-up.
export WINEPREFIX="$TDIR/wine-prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$TDIR/shim"
cat >"$TDIR/shim/prng.c" <<'C'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    for (; len > 0x40000000; data += 0x40000000, len -= 0x40000000)
        if (!SystemFunction036(data, 0x40000000)) return FALSE;
    return SystemFunction036(data, (ULONG)len);
}
C
x86_64-w64-mingw32-gcc -shared -O2 -o "$TDIR/shim/bcryptprimitives.dll" "$TDIR/shim/prng.c" -ladvapi32
WINESERVER=/usr/lib/wine/wineserver64
if [[ ! -d "$WINEPREFIX/drive_c/windows/system32" ]]; then
  "$WINE" wineboot --init >/dev/null 2>&1 || true
  # wineboot leaves its server running for a few seconds; a second server for the same
  # prefix refuses to start (exit 2), so wait for this one to end.
  "$WINESERVER" -w
fi
[[ -d "$WINEPREFIX/drive_c/windows/system32" ]] || { echo "windows-check: wineboot made no prefix in $WINEPREFIX" >&2; exit 1; }
cp "$TDIR/shim/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
# One wine server for all the runs below, ended on exit.
"$WINESERVER" -p
trap '"$WINESERVER" -k >/dev/null 2>&1 || true' EXIT
"$WINE" "$EXE" --version || { echo "windows-check: the .exe does not start under wine" >&2; exit 1; }

# ---------------------------------------------------------------- 3. same output
phase=$SECONDS
cmp_dir="$TDIR/compare"
rm -rf "$cmp_dir" && mkdir -p "$cmp_dir"
# Run one binary (`linux` or `win`) in folder $1 with the rest as arguments; its
# standard output, standard error and exit code go to $cmp_dir/$side.{out,err,code}.
run_in() {
  local side="$1" dir="$2"
  shift 2
  local code=0
  if [[ "$side" == linux ]]; then
    (cd "$dir" && "$LINUX" "$@") >"$cmp_dir/$side.out" 2>"$cmp_dir/$side.err" || code=$?
  else
    # A wine process killed from outside (the kernel's OOM killer on a busy machine:
    # 137, twice in a row seen on a shared 2-core machine) is run again, up to three
    # times in all, after a pause; the program's own exit codes are 0 to 2.
    local try
    for try in 1 2 3; do
      code=0
      (cd "$dir" && "$WINE" "$EXE" "$@") >"$cmp_dir/$side.out" 2>"$cmp_dir/$side.err" || code=$?
      ((code > 128)) || break
      echo "windows-check: wine was killed (exit $code) in $dir, run $try of 3" >&2
      sleep 2
    done
  fi
  echo "$code" >"$cmp_dir/$side.code"
}
# Whether the two sides printed the same bytes and exited alike; names what differs.
same_output() {
  local what=() s
  for s in out err code; do
    cmp -s "$cmp_dir/linux.$s" "$cmp_dir/win.$s" || what+=("$s")
  done
  ((${#what[@]} == 0)) && return 0
  echo "DIFFERENT $1: ${what[*]} (exit $(cat "$cmp_dir/linux.code") on Linux, $(cat "$cmp_dir/win.code") under wine)"
  return 1
}
for side in linux win; do run_in "$side" examples/merge merge base.tscn ours.tscn theirs.tscn; done
same_output "examples/merge" && echo "examples/merge: identical" || fail "examples/merge differs"

total=0
same=0
for d in "$shared"/merges/*/; do
  name="$(basename "$d")"
  sides=()
  for s in base ours theirs; do
    for ext in tscn tres escn; do
      if [[ -f "$d/$s.$ext" ]]; then sides+=("$s.$ext"); break; fi
    done
  done
  total=$((total + 1))
  for side in linux win; do run_in "$side" "$d" merge --explain=json "${sides[@]}"; done
  same_output "$name" && same=$((same + 1))
done
echo "real merges (merge --explain=json): $same/$total identical in $((SECONDS - phase)) s"
((same == total)) || fail "$((total - same)) real merges differ"

# ---------------------------------------------------------------- 4. tests
if ((TESTS)); then
  phase=$SECONDS
  skip_args=()
  for s in "${SKIPS[@]}"; do
    skip_args+=(--skip "${s%%|*}")
    echo "skipped under wine: ${s%%|*} (${s#*|})"
  done
  # A skip that names no test (a module moved) would let the real test run and fail, or
  # hide that the list is stale: every name must match a test in some executable.
  listed="$TDIR/tests.list"
  : >"$listed"
  for exe in "${exes[@]}"; do "$WINE" "$exe" --list 2>/dev/null >>"$listed" || true; done
  for s in "${SKIPS[@]}"; do
    grep -qF "${s%%|*}" "$listed" || fail "the skip '${s%%|*}' names no test (stale name?)"
  done
  passed=0
  for exe in "${exes[@]}"; do
    log="$TDIR/$(basename "$exe").log"
    for try in 1 2; do
      code=0
      TSCN_SHARED="$(win_path "$shared")" "$WINE" "$exe" "${skip_args[@]}" >"$log" 2>&1 || code=$?
      # Killed from outside (137: see run_in): once more.
      ((code > 128)) || break
    done
    result="$(grep -E '^test result:' "$log" | tail -n 1 || true)"
    echo "$(basename "$exe"): ${result:-no result}"
    if [[ "$result" == *" ok."* ]]; then
      n="$(sed -n 's/.* \([0-9]*\) passed.*/\1/p' <<<"$result")"
      passed=$((passed + n))
    else
      grep -E '^(test .* FAILED|---- )' "$log" | head -n 20 || true
      fail "$(basename "$exe") under wine (log: $log)"
    fi
  done
  echo "tests under wine: $passed passed, ${#SKIPS[@]} skipped by name, in $((SECONDS - phase)) s"
fi

# ---------------------------------------------------------------- 5. macOS
if ((MACOS)); then
  phase=$SECONDS
  for mac in aarch64-apple-darwin x86_64-apple-darwin; do
    env_cc="CC_${mac//-/_}"
    if (export "$env_cc=clang" && deb_cargo check --release -j2 -Zbuild-std=std,panic_abort \
      --target "$mac" --target-dir "$ROOT/target/macos" --bin tscn-merge --lib --quiet); then
      echo "macOS $mac: cargo check passed"
    else
      fail "cargo check --target $mac"
    fi
  done
  echo "windows-check: macOS checks in $((SECONDS - phase)) s"
fi

echo "windows-check: $failures failures, $((SECONDS - start)) s in all"
((failures == 0))
