#!/usr/bin/env bash
# Load Godot 3 scenes/resources with the real engine (Debian: apt-get install godot3-server).
#   scripts/godot3-check.sh FILE...        (or: scripts/godot3-check.sh -l LISTFILE)
# Prints "OK <file>" or "FAIL <file>" per file (in order), then "DONE".
# Exit 0 when the engine ran (whatever the files gave), 2 when it could not run.
# The engine binary: $GODOT3, else godot3-server, godot3 or godot on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
files=()
if [[ "${1:-}" == "-l" ]]; then
  mapfile -t files < "$2"
else
  files=("$@")
fi
godot="${GODOT3:-}"
if [[ -z "$godot" ]]; then
  for g in godot3-server godot3 godot; do
    if command -v "$g" >/dev/null 2>&1; then godot="$g"; break; fi
  done
fi
if [[ -z "$godot" ]]; then
  echo "godot3-check: no Godot 3 binary (apt-get install godot3-server, or set GODOT3)" >&2
  exit 2
fi
proj="$(mktemp -d "${TMPDIR:-/tmp}/godot3-check.XXXXXX")"
trap 'rm -rf "$proj"' EXIT
cat > "$proj/project.godot" <<'PROJ'
config_version=4

[application]

config/name="godot3-check"
run/flush_stdout_on_print=true
PROJ
cp "$here/godot3_load.gd" "$proj/_godot3_load.gd"
mkdir -p "$proj/f"
: > "$proj/_files.txt"
declare -A orig
i=0
for f in "${files[@]}"; do
  [[ -n "$f" ]] || continue
  b="$(basename "$f")"
  ext="${b##*.}"
  [[ "$b" == *.* ]] || ext=tres
  res="res://f/$i.$ext"
  cp "$f" "$proj/f/$i.$ext"
  echo "$res" >> "$proj/_files.txt"
  orig["$res"]="$f"
  i=$((i + 1))
done
# HOME: Godot writes its user data and editor settings there.
export HOME="$proj/home"
mkdir -p "$HOME"
LC_ALL=C.UTF-8 "$godot" --path "$proj" -s res://_godot3_load.gd 2>"$proj/stderr.log" | while IFS= read -r line; do
  case "$line" in
    "OK res://"*) echo "OK ${orig[${line#OK }]}" ;;
    "FAIL res://"*) echo "FAIL ${orig[${line#FAIL }]}" ;;
    DONE) echo DONE ;;
  esac
done
