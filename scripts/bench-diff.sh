#!/usr/bin/env bash
# Benchmark `tscn-merge diff` against `git diff --no-index` on two generated ~20 MB
# scenes (mesh-heavy: big packed arrays; node-heavy: ~100,000 small nodes), each with a
# modified copy, on a Godot 4.6 variant with `unique_id` on every node (~120,000 nodes,
# scripts/gen-scenes.py --unique-ids, at 5, 10 and 20 MB to show how time grows), and
# `tscn-merge review` over 100 commits of a generated history.
# Not a test: prints wall-clock timings and the ratio. Issue 37's aim, at most 0.65x
# git's CPU, is measured in CPU time (wait4) by scripts/bench-guard.sh, which CI runs.
source "$(dirname "$0")/lib-bench.sh"

python3 - "$WORK" <<'PY'
import random, sys, os
out = sys.argv[1]
rnd = random.Random(42)

def mesh(path, modify):
    r = random.Random(7)
    with open(path, "w") as f:
        f.write('[gd_scene load_steps=4 format=3 uid="uid://bench_mesh"]\n\n')
        f.write('[ext_resource type="Material" path="res://mat.tres" id="1_mat00"]\n\n')
        for m in range(4):
            n = 90000
            verts = ", ".join("%.6g" % (r.uniform(-50, 50)) for _ in range(n * 3))
            norms = ", ".join("%.6g" % (r.uniform(-1, 1)) for _ in range(n * 3))
            idx = ", ".join(str(r.randrange(n)) for _ in range(n))
            if modify and m == 2:
                verts = verts.replace(", ", ", 1.5, ", 1).replace(", 1.5, ", ", ", 0)
                parts = verts.split(", ")
                for k in range(0, 300, 3):
                    parts[k * 97] = "%.6g" % (float(parts[k * 97]) + 1)
                verts = ", ".join(parts)
            f.write('[sub_resource type="ArrayMesh" id="ArrayMesh_m%d"]\n' % m)
            f.write('_surfaces = [{\n"aabb": AABB(-50, -50, -50, 100, 100, 100),\n"format": 4097,\n')
            f.write('"index_count": %d,\n"primitive": 3,\n' % n)
            f.write('"vertex_data": PackedVector3Array(%s),\n"normal_data": PackedVector3Array(%s),\n"index_data": PackedInt32Array(%s)\n}]\n\n' % (verts, norms, idx))
        f.write('[node name="World" type="Node3D"]\n\n')
        for m in range(4):
            f.write('[node name="Mesh%d" type="MeshInstance3D" parent="."]\n' % m)
            pos = "Vector3(%d, 0, 0)" % (m * 10 + (5 if modify and m == 1 else 0))
            f.write('transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, %s)\n' % pos[8:-1])
            f.write('mesh = SubResource("ArrayMesh_m%d")\nmaterial_override = ExtResource("1_mat00")\n\n' % m)

def nodes(path, modify, count=100000):
    r = random.Random(11)
    with open(path, "w") as f:
        f.write('[gd_scene format=3 uid="uid://bench_nodes"]\n\n')
        f.write('[ext_resource type="Script" path="res://enemy.gd" id="1_enemy"]\n\n')
        f.write('[node name="Level" type="Node2D"]\n\n')
        groups = count // 100
        for g in range(groups):
            f.write('[node name="Group%d" type="Node2D" parent="."]\n' % g)
            f.write('position = Vector2(%d, %d)\n\n' % (g * 64, g % 7))
            for i in range(99):
                x, y = r.uniform(0, 4096), r.uniform(0, 4096)
                if modify and (g * 99 + i) % 5000 == 17:
                    x += 3
                name = "Enemy%d" % i
                if modify and g == groups // 2 and i == 3:
                    name = "Boss"
                f.write('[node name="%s" type="Sprite2D" parent="Group%d"]\n' % (name, g))
                f.write('position = Vector2(%.6g, %.6g)\n' % (x, y))
                f.write('rotation = %.6g\nscale = Vector2(%.6g, %.6g)\n' % (r.uniform(-3, 3), r.uniform(0.5, 2), r.uniform(0.5, 2)))
                f.write('script = ExtResource("1_enemy")\nhealth = %d\n\n' % (r.randrange(100)))
        if modify:
            f.write('[node name="Added" type="Node2D" parent="."]\n\n')

mesh(os.path.join(out, "mesh_a.tscn"), False)
mesh(os.path.join(out, "mesh_b.tscn"), True)
nodes(os.path.join(out, "nodes_a.tscn"), False)
nodes(os.path.join(out, "nodes_b.tscn"), True)
PY

# Best of 3 wall-clock seconds of a command (output discarded, exit status ignored).
best() {
  local best=999999
  for _ in 1 2 3; do
    local s e t
    s=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc -l)
    if (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
  done
  printf '%.3f' "$best"
}

for mb in 5 10 20; do
  python3 scripts/gen-scenes.py "$WORK/uid$mb.a" --mb "$mb" --nodes-only --unique-ids >/dev/null
  python3 scripts/gen-scenes.py "$WORK/uid$mb.b" --mb "$mb" --nodes-only --unique-ids --edit >/dev/null
  mv "$WORK/uid$mb.a/node-heavy.tscn" "$WORK/uid${mb}_a.tscn"
  mv "$WORK/uid$mb.b/node-heavy.tscn" "$WORK/uid${mb}_b.tscn"
done

printf '%-10s %8s %12s %12s %7s\n' case MB tscn-merge "git diff" ratio
for k in mesh nodes uid5 uid10 uid20; do
  a="$WORK/${k}_a.tscn"; b="$WORK/${k}_b.tscn"
  mb=$(echo "$(stat -c %s "$b") / 1048576" | bc -l)
  t=$(best "$BIN" diff --color never "$a" "$b")
  g=$(best git diff --no-index --no-color "$a" "$b")
  printf '%-10s %8.1f %11ss %11ss %6.2fx\n' "$k" "$mb" "$t" "$g" "$(echo "$t / $g" | bc -l)"
done
"$BIN" diff --color never "$WORK/nodes_a.tscn" "$WORK/nodes_b.tscn" | head -5 || true

# Replaced siblings (issue 29 §10): N siblings all replaced by N others (a regenerated
# level). Rename pairing compares candidates up to a budget linear in the nodes
# (src/model/likeness.rs), so time grows linearly, not as N x N (7 s at 1,000 and more
# than 5 minutes at 10,000 before the budget).
for n in 1000 10000; do
  python3 - "$WORK" "$n" <<'PY'
import random, sys
out, n = sys.argv[1], int(sys.argv[2])
r = random.Random(5)
for side, prefix in (("a", "Old"), ("b", "New")):
    with open("%s/replaced%d_%s.tscn" % (out, n, side), "w") as f:
        f.write('[gd_scene format=3]\n\n[node name="Level" type="Node2D"]\n\n')
        for i in range(n):
            f.write('[node name="%s%d" type="Sprite2D" parent="."]\nposition = Vector2(%d, %d)\nhealth = %d\n\n'
                    % (prefix, i, r.randrange(5000), r.randrange(5000), r.randrange(100)))
PY
  t=$(best "$BIN" diff --color never "$WORK/replaced${n}_a.tscn" "$WORK/replaced${n}_b.tscn")
  printf 'replaced siblings, N=%d: %ss\n' "$n" "$t"
done

# review over 100 commits of a generated history (a ~1 MB scene, a few edits per commit).
REPO="$WORK/repo"
mkdir -p "$REPO"
git -C "$REPO" init -q -b main
python3 - "$REPO" <<'PY'
import sys, subprocess, random
repo = sys.argv[1]
r = random.Random(3)
vals = [r.randrange(1000) for _ in range(5000)]
def write():
    with open(repo + "/level.tscn", "w") as f:
        f.write('[gd_scene format=3]\n\n[node name="L" type="Node2D"]\n\n')
        for i, v in enumerate(vals):
            f.write('[node name="N%d" type="Node2D" parent="."]\nposition = Vector2(%d, 0)\n\n' % (i, v))
env = dict(GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@x")
import os
env.update(os.environ)
write()
subprocess.run(["git", "-C", repo, "add", "-A"], check=True)
subprocess.run(["git", "-C", repo, "commit", "-qm", "base"], check=True, env=env)
subprocess.run(["git", "-C", repo, "tag", "base"], check=True)
for c in range(100):
    for _ in range(5):
        vals[r.randrange(len(vals))] += 1
    write()
    subprocess.run(["git", "-C", repo, "commit", "-qam", "c%d" % c], check=True, env=env)
PY
t=$(best "$BIN" review --repo "$REPO" base..HEAD)
printf 'review over 100 commits (base..HEAD, 1 file): %ss\n' "$t"
t=$(best "$BIN" review --repo "$REPO" --format json base..HEAD)
printf 'review --format json: %ss\n' "$t"
