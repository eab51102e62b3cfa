#!/usr/bin/env bash
# History commands with the drivers against plain git (issue 16 §1): `git log -p -200`,
# `git diff HEAD~200 HEAD` and `git log -S` on a generated Godot 4 project history
# (default 300 commits over 40 scenes of 50-500 nodes each, 1-3 scenes changed per
# commit), with the drivers installed by the built binary's `tscn-merge install`.
#
# Columns: plain git (`--no-textconv --no-ext-diff`); the drivers as installed (every
# blob goes through a textconv process: the `tscn-merge-textconv` link that `install`
# makes, which git starts without a shell; `git diff` through the external diff); the
# drivers with `diff.tscn-merge.cachetextconv=true`, first run (filling git's notes
# cache) and warm (repeated). Each figure is the best of RUNS wall-clock runs and,
# beside it, the CPU seconds (user + system of git and everything it started) of that
# run: on a busy machine wall time mostly measures waiting, CPU time what the work costs.
# Then the floor of a process per blob: `git log -p -200` and `git log -S` with textconv
# `cat` (started directly), `cat -u` (a space: git goes through `sh -c`), and our command
# through the shell (`tscn-merge textconv --`, what `install` writes when it cannot make
# the link). The binary is linked statically where it can be (build.rs): a dynamic one
# costs ~0.5 ms more a call (`TSCN_MERGE_DYNAMIC=1 cargo build --release` to compare).
# Aim: warm cache within 3x of plain git, first run within 10x. Not a test: prints
# figures and never fails on them.
#
#   scripts/bench-history.sh [COMMITS [SCENES [RUNS]]]
source "$(dirname "$0")/lib-bench.sh"
COMMITS="${1:-300}"
SCENES="${2:-40}"
RUNS="${3:-3}"
REPO="$WORK/repo"
export GIT_CONFIG_NOSYSTEM=1 HOME="$WORK" GIT_PAGER=cat
# git commits the textconv cache as notes: it needs a name.
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset NO_COLOR GIT_PAGER_IN_USE GIT_EXTERNAL_DIFF GIT_DIR GIT_WORK_TREE || true

python3 - "$REPO" "$COMMITS" "$SCENES" <<'PY'
import os, random, subprocess, sys
repo, commits, nscenes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(5)
ID = "abcdefghijklmnopqrstuvwxyz0123456789"
def rid(): return "".join(r.choice(ID) for _ in range(5))
def f(x): return "%.6g" % x
def vec(lo, hi): return "Vector2(%s, %s)" % (f(r.uniform(lo, hi)), f(r.uniform(lo, hi)))
TYPES = ["Sprite2D", "Node2D", "Area2D", "CollisionShape2D", "Label", "AnimationPlayer", "Marker2D"]

class Scene:
    def __init__(self, k):
        self.k, self.counter = k, 0
        self.uid = "uid://" + "".join(r.choice(ID) for _ in range(12))
        self.ext = [("Script", "res://scripts/s%d.gd" % i) for i in range(r.randrange(1, 4))]
        self.ext += [("Texture2D", "res://art/t%d.png" % i) for i in range(r.randrange(1, 5))]
        self.ext = [(t, p, "%d_%s" % (i + 1, rid())) for i, (t, p) in enumerate(self.ext)]
        self.subs = []
        for _ in range(r.randrange(2, 12)):
            self.add_sub()
        self.nodes = [self.node("Root", None)]
        for _ in range(r.randrange(50, 500) - 1):
            self.add_node(self.nodes[: max(1, len(self.nodes) // 3)])
        self.conns = [(r.choice(self.nodes)["path"], r.choice(self.nodes)["path"], "_on_%d" % i)
                      for i in range(r.randrange(0, 6))]
    def add_sub(self):
        t = r.choice(["RectangleShape2D", "CircleShape2D", "Curve", "Gradient"])
        props = {"RectangleShape2D": [("size", vec(1, 64))],
                 "CircleShape2D": [("radius", f(r.uniform(1, 40)))],
                 "Curve": [("_data", "[Vector2(0, 0), 0.0, 0.0, 0, 0, Vector2(1, %s), 0.0, 0.0, 0, 0]" % f(r.random())),
                           ("point_count", "2")],
                 "Gradient": [("offsets", "PackedFloat32Array(%s)" % ", ".join(f(r.random()) for _ in range(8))),
                              ("colors", "PackedColorArray(%s)" % ", ".join(f(r.random()) for _ in range(32)))]}[t]
        self.subs.append([t, "%s_%s" % (t, rid()), props])
    def node(self, name, parent):
        t = r.choice(TYPES)
        props = [("position", vec(-500, 500))]
        if r.random() < 0.3: props.append(("rotation", f(r.uniform(-3, 3))))
        if r.random() < 0.3: props.append(("scale", vec(0.5, 2)))
        if t == "Sprite2D":
            props.append(("texture", 'ExtResource("%s")' % r.choice([e for e in self.ext if e[0] == "Texture2D"])[2]))
        if t == "CollisionShape2D": props.append(("shape", 'SubResource("%s")' % r.choice(self.subs)[1]))
        if t == "Label": props.append(("text", '"Hello %d\nsecond line"' % r.randrange(1000)))
        if r.random() < 0.1:
            props.append(("script", 'ExtResource("%s")' % r.choice([e for e in self.ext if e[0] == "Script"])[2]))
        path = "." if parent is None else (name if parent == "." else parent + "/" + name)
        return {"name": name, "type": t, "parent": parent, "path": path, "props": props}
    def add_node(self, parents):
        self.counter += 1
        self.nodes.append(self.node("N%d" % self.counter, r.choice(parents)["path"]))
    def text(self):
        out = ['[gd_scene load_steps=%d format=3 uid="%s"]\n\n' % (len(self.ext) + len(self.subs) + 1, self.uid)]
        out += ['[ext_resource type="%s" path="%s" id="%s"]\n' % e for e in self.ext] + ["\n"]
        for t, i, props in self.subs:
            out += ['[sub_resource type="%s" id="%s"]\n' % (t, i)] + ["%s = %s\n" % kv for kv in props] + ["\n"]
        for n in self.nodes:
            par = "" if n["parent"] is None else ' parent="%s"' % n["parent"]
            out += ['[node name="%s" type="%s"%s]\n' % (n["name"], n["type"], par)]
            out += ["%s = %s\n" % kv for kv in n["props"]] + ["\n"]
        out += ['[connection signal="pressed" from="%s" to="%s" method="%s"]\n' % c for c in self.conns]
        return "".join(out)
    def edit(self):
        r.choice(self.nodes)["props"][0] = ("position", vec(-500, 500))
        for _ in range(r.randrange(0, 5)):
            x = r.random()
            if x < 0.6: r.choice(self.nodes)["props"][0] = ("position", vec(-500, 500))
            elif x < 0.75: self.add_node(self.nodes[:10])
            elif x < 0.85:
                leaf = self.nodes[-1]
                if len(self.nodes) > 10 and not any(n["parent"] == leaf["path"] for n in self.nodes):
                    self.nodes.pop()
            elif x < 0.95: self.add_sub()
            else:
                props = r.choice(self.subs)[2]
                props[0] = (props[0][0], props[0][1].replace("1", "2", 1))

env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
def git(*a): subprocess.run(["git", "-C", repo] + list(a), check=True, env=env)
def write(s):
    with open(os.path.join(repo, "scenes", "level%02d.tscn" % s.k), "w") as fh: fh.write(s.text())
os.makedirs(os.path.join(repo, "scenes"))
git("init", "-q", "-b", "main")
scenes = [Scene(k) for k in range(nscenes)]
for s in scenes: write(s)
with open(os.path.join(repo, "main.gd"), "w") as fh: fh.write("extends Node\n")
git("add", "-A"); git("commit", "-qm", "initial")
for c in range(commits - 1):
    for s in r.sample(scenes, r.randrange(1, 4)):
        s.edit(); write(s)
    if c % 7 == 0:
        with open(os.path.join(repo, "main.gd"), "a") as fh: fh.write("var v%d = %d\n" % (c, c))
    git("add", "-A"); git("commit", "-qm", "commit %d" % c)
PY
(cd "$REPO" && "$BIN" install >/dev/null)
# The drivers must not count as the repository's own change.
git -C "$REPO" add .gitattributes && git -C "$REPO" -c user.name=b -c user.email=b@x commit -qm attributes

# `best CMD...`: "WALL CPU" of the fastest of RUNS runs (seconds), output discarded.
best() {
  python3 - "$RUNS" "$@" <<'PY'
import resource, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
best = None
for _ in range(runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if best is None or wall < best[0]:
        best = (wall, cpu)
print("%.3f %.3f" % best)
PY
}
NOTES=refs/notes/textconv/tscn-merge
g() { git -C "$REPO" "$@"; }
ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('%.1fx' % (a / b) if b > 0 else '-')" "$1" "$2"; }

cases=("log -p -200" "diff HEAD~200 HEAD" "log -S position --oneline")
printf '%s commits, %s scenes, %s KB of scenes at HEAD; best of %s runs; wall s / cpu s\n' \
  "$(g rev-list --count HEAD)" "$SCENES" "$(du -sk "$REPO/scenes" | cut -f1)" "$RUNS"
printf '%-28s %13s %13s %13s %13s   %s\n' command "plain git" drivers "cache: fill" "cache: warm" "ratio drivers, warm (wall; cpu)"
for c in "${cases[@]}"; do
  read -r -a args <<<"$c"
  read -r pw pc < <(best git -C "$REPO" "${args[@]}" --no-textconv --no-ext-diff)
  read -r dw dc < <(best git -C "$REPO" "${args[@]}")
  # The cache holds textconv output only: the external diff is bypassed for the
  # cached `git diff` (`--no-ext-diff`), as `git log` does by default.
  extra=(); [[ "${args[0]}" == diff ]] && extra=(--no-ext-diff)
  g update-ref -d "$NOTES" 2>/dev/null || true
  RUNS_SAVED=$RUNS; RUNS=1
  read -r fw fc < <(best git -C "$REPO" -c diff.tscn-merge.cachetextconv=true "${args[@]}" "${extra[@]}")
  RUNS=$RUNS_SAVED
  read -r ww wc < <(best git -C "$REPO" -c diff.tscn-merge.cachetextconv=true "${args[@]}" "${extra[@]}")
  printf '%-28s %6s/%6s %6s/%6s %6s/%6s %6s/%6s   %s; %s   %s; %s\n' "git $c" \
    "$pw" "$pc" "$dw" "$dc" "$fw" "$fc" "$ww" "$wc" \
    "$(ratio "$dw" "$pw")" "$(ratio "$dc" "$pc")" "$(ratio "$ww" "$pw")" "$(ratio "$wc" "$pc")"
done
# The floor for a textconv process per blob, against plain git: textconv `cat` (git
# starts it directly, as it starts our link), `cat -u` (a space: git goes through
# `sh -c`), and our command through the shell (`tscn-merge textconv --`, what `install`
# writes when it cannot make the link). `log -S` converts both sides of every changed
# scene, so it pays the most processes for the least output of git's own.
for c in "log -p -200" "log -S position --oneline"; do
  read -r -a args <<<"$c"
  read -r lw lc < <(best git -C "$REPO" "${args[@]}" --no-textconv --no-ext-diff)
  for tc in cat "cat -u" "$BIN textconv --"; do
    read -r cw cc < <(best git -C "$REPO" -c diff.tscn-merge.textconv="$tc" "${args[@]}")
    printf 'git %s, textconv %-22s %6s/%6s   %s; %s\n' "${args[0]} ${args[1]}" "\"${tc/#$WORK\//}\":" \
      "$cw" "$cc" "$(ratio "$cw" "$lw")" "$(ratio "$cc" "$lc")"
  done
done
printf 'scene changes in the last 200 commits (two textconv calls each): %s\n' \
  "$(g log -200 --format= --name-only | grep -c 'tscn$' || true)"
printf 'scene changes in all %s commits (log -S converts both sides of each): %s\n' \
  "$(g rev-list --count HEAD)" "$(g log --format= --name-only | grep -c 'tscn$' || true)"
