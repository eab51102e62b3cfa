#!/usr/bin/env bash
# A native Godot 4 for `tscn-merge check --godot` and tests/check_godot.rs: Debian's own
# build of the engine (package `godot`, Expat licence, "Godot Engine v4.6.x.stable.debian"),
# which only Debian unstable carries. It needs a newer C library and a few libraries this
# system lacks, so nothing is installed into the system: the package and the libraries it
# needs beyond what is installed are unpacked into DEST (default /opt/godot4), and
# DEST/bin/godot4 runs the engine through that C library's own loader.
#
#   bash scripts/install-godot4.sh [DEST]
#
# Idempotent: a DEST/bin/godot4 that answers `--version` as Godot 4 is kept. The archive is
# the one this system's own Debian sources name (their signing keys check it), with the
# suite `unstable`. Exit 0 installed, 1 not possible here (said why on stderr).
set -euo pipefail

dest=${1:-/opt/godot4}
godot4="$dest/bin/godot4"

version_of() { "$1" --headless --version 2>/dev/null | grep -E '^4\.' | tail -n 1; }

if [[ -x $godot4 ]] && v=$(version_of "$godot4") && [[ -n $v ]]; then
    echo "godot4 $v (already in $dest)"
    exit 0
fi
fail() { echo "install-godot4: $*" >&2; exit 1; }
for tool in apt-get apt-cache dpkg-deb dpkg-query; do
    command -v "$tool" >/dev/null || fail "no $tool: Godot 4 comes from Debian's packages"
done
[[ $(dpkg --print-architecture) == amd64 ]] || fail "only amd64 is set up"
grep -qw sse4_2 /proc/cpuinfo || fail "Debian's Godot 4 needs a processor with SSE4.2"

# The Debian archive this system already uses, and its keyring.
mirror=$(apt-get indextargets --format '$(REPO_URI)|$(LABEL)|$(IDENTIFIER)' 2>/dev/null |
    awk -F'|' '$2 == "Debian" && $3 == "Packages" { print $1; exit }')
[[ -n $mirror ]] || fail "this system's apt sources name no Debian archive"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f $keyring ]] || fail "no $keyring"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] $mirror unstable main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" -qq update || fail "apt-get update of Debian unstable failed"

# The package and, depth first, every dependency this system lacks or has too old.
installed_ok() { # NAME [OP VERSION]
    local have
    have=$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null |
        awk '$1 == "install" && $3 == "installed" { print $4 }')
    [[ -n $have ]] || return 1
    [[ -z ${2:-} ]] && return 0
    local op
    case $2 in '>=') op=ge ;; '<=') op=le ;; '>>') op=gt ;; '<<') op=lt ;; *) op=eq ;; esac
    dpkg --compare-versions "$have" "$op" "$3"
}
declare -A seen
need=()
queue=(godot)
while ((${#queue[@]})); do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    [[ -n ${seen[$p]:-} ]] && continue
    seen[$p]=1
    info=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$p" 2>/dev/null) || continue
    # Install-time processor checks (done above), not files.
    [[ $p == isa-support || $p == *-support ]] || need+=("$p")
    while IFS= read -r dep; do
        dep=${dep%%|*}
        read -r name op version <<<"$(sed 's/[()]//g' <<<"$dep")"
        name=${name%%:*}
        [[ -z $name || -n ${seen[$name]:-} ]] && continue
        installed_ok "$name" ${op:+"$op"} ${version:+"$version"} || queue+=("$name")
    done < <(sed -n 's/^\(Pre-\)\?Depends: //p' <<<"$info" | tr ',' '\n')
done
[[ ${need[0]:-} == godot ]] || fail "Debian unstable has no package godot"

(cd "$work/debs" && apt-get "${apt_opts[@]}" -qq download "${need[@]}") ||
    fail "downloading ${#need[@]} packages failed"
rm -rf "$dest.new"
mkdir -p "$dest.new/bin"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$dest.new/root"; done
lib=usr/lib/x86_64-linux-gnu
[[ -x $dest.new/root/$lib/ld-linux-x86-64.so.2 ]] || fail "no C library loader unpacked"
cat >"$dest.new/bin/godot4" <<EOF
#!/bin/sh
# Debian's Godot 4 with the libraries it needs (scripts/install-godot4.sh), run by the
# loader of its own C library.
root="\$(dirname "\$(readlink -f "\$0")")/../root"
exec "\$root/$lib/ld-linux-x86-64.so.2" --library-path "\$root/$lib" --argv0 "\$0" "\$root/usr/bin/godot" "\$@"
EOF
chmod 755 "$dest.new/bin/godot4"
# A first start on a fresh machine has failed once where the next succeeded: try twice,
# and say what the engine printed when it still does not answer.
v=$(version_of "$dest.new/bin/godot4") || true
[[ -n $v ]] || { sleep 2; v=$(version_of "$dest.new/bin/godot4") || true; }
if [[ -z $v ]]; then
    "$dest.new/bin/godot4" --headless --version 2>&1 | tail -n 8 | sed 's/^/install-godot4: engine: /' >&2 || true
    fail "the unpacked engine does not answer --version as Godot 4 (its output above)"
fi
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "godot4 $v (${#need[@]} Debian packages unpacked in $dest)"
