#!/usr/bin/env python3
"""Generate two big three-way merge scenarios (base, ours, theirs) for the merge benchmark.

    scripts/gen-merge-scenes.py OUT_DIR [--mb 20]

The bases are `scripts/gen-scenes.py`'s mesh-heavy.tscn (big packed arrays) and
node-heavy.tscn (~100,000 small nodes), imported, not copied. For each, writes
OUT_DIR/<name>.{base,ours,theirs}.tscn where both sides changed the file:

- ours edits a few properties (in [node]s and [sub_resource]s, one number inside a packed
  array on the mesh scene), adds a [sub_resource] and a [node] using it, bumps load_steps;
- theirs edits other properties, adds another [node] and a [sub_resource] whose id
  collides on purpose with ours' new one (different content), bumps load_steps.

A line merge conflicts (load_steps, the two additions at the same places); a structural
merge should merge cleanly by renaming one of the colliding ids. Deterministic output.
"""
import argparse
import importlib.util
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gen_scenes", os.path.join(HERE, "gen-scenes.py"))
gen_scenes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_scenes)


def sub(text, old, new, count=1):
    """Replace the first `count` occurrences of `old`; fail loudly if it is missing."""
    if old not in text:
        raise SystemExit("gen-merge-scenes: %r not found in the base" % old[:80])
    return text.replace(old, new, count)


def bump_load_steps(text):
    m = re.search(r"load_steps=(\d+)", text)
    return text[: m.start()] + "load_steps=%d" % (int(m.group(1)) + 1) + text[m.end():]


def insert_after_last_sub_resource(text, block):
    """Insert `block` (ending in a blank line) before the first [node] section."""
    i = text.index("\n[node ") + 1
    return text[:i] + block + text[i:]


def edit_packed_number(text, marker, nth, new):
    """Replace the nth number after `marker` (e.g. inside a PackedVector3Array body)."""
    start = text.index(marker) + len(marker)
    pos = start
    for _ in range(nth):
        pos = text.index(", ", pos) + 2
    end = text.index(",", pos)
    return text[:pos] + new + text[end:]


def mesh_sides(base):
    # ours: a resource_name, a node transform, one vertex coordinate of chunk 7's mesh.
    ours = sub(base, 'resource_name = "chunk_3"\n', 'resource_name = "chunk_3_lod0"\n')
    ours = sub(ours, "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 100, 0, 0)\n",
               "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 100, 2.5, 0)\n")
    chunk7 = ours.index('resource_name = "chunk_7"')
    ours = ours[:chunk7] + edit_packed_number(ours[chunk7:], "PackedVector3Array(", 100, "4.25")
    ours = bump_load_steps(ours)
    ours = insert_after_last_sub_resource(
        ours, '[sub_resource type="BoxMesh" id="BoxMesh_c0l1d"]\nsize = Vector3(2, 1, 2)\n\n')
    ours += ('\n[node name="Crate" type="MeshInstance3D" parent="."]\n'
             "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 4, 1, 4)\n"
             'mesh = SubResource("BoxMesh_c0l1d")\n')
    # theirs: another resource_name, another transform, an aabb, the material of chunk 20.
    theirs = sub(base, 'resource_name = "chunk_12"\n', 'resource_name = "chunk_12_cliff"\n')
    theirs = sub(theirs, "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 60)\n",
                 "transform = Transform3D(0, 0, -1, 0, 1, 0, 1, 0, 0, 0, 0, 60)\n")
    c20 = theirs.index('resource_name = "chunk_20"')
    theirs = theirs[:c20] + sub(theirs[c20:], '"aabb": AABB(-10, -10, -10, 20, 20, 20),',
                                '"aabb": AABB(-10, -12, -10, 20, 24, 20),')
    theirs = bump_load_steps(theirs)
    theirs = insert_after_last_sub_resource(
        theirs, '[sub_resource type="BoxMesh" id="BoxMesh_c0l1d"]\nsize = Vector3(0.5, 3, 0.5)\n\n')
    theirs += ('\n[node name="Pillar" type="MeshInstance3D" parent="."]\n'
               "transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, -6, 1.5, 2)\n"
               'mesh = SubResource("BoxMesh_c0l1d")\n')
    return ours, theirs


def nth_after(text, anchor, old, new):
    """Replace the first `old` after `anchor`."""
    i = text.index(anchor)
    return text[:i] + sub(text[i:], old, new)


def node_sides(base):
    # Nodes are Room<k> (every 50th) and Item<n> of three kinds: edit whatever the first
    # property line of a chosen item is, so the edit does not depend on the item's kind.
    def edit_first_prop(text, item, new_line):
        m = re.search(r'\[node name="%s" [^\n]*\n([^\n]*)\n' % item, text)
        if m is None:
            raise SystemExit("gen-merge-scenes: %s not found" % item)
        return text[: m.start(1)] + new_line(m.group(1)) + text[m.end(1):]

    def moved(line):
        if line.startswith("position"):
            return "position = Vector2(1, 2)"
        return line.split(" = ")[0] + " = 321.5"  # a Label's offset_right

    ours = text = base
    for n in (101, 25_003, 61_007, 90_011):
        ours = edit_first_prop(ours, "Item%d" % n, moved)
    ours = edit_first_prop(ours, "Room7", lambda line: "position = Vector2(3584, 8)")
    ours = bump_load_steps(ours)
    ours = insert_after_last_sub_resource(
        ours, '[sub_resource type="RectangleShape2D" id="RectangleShape2D_c0l1d"]\nsize = Vector2(32, 8)\n\n')
    ours += ('\n[node name="Door" type="StaticBody2D" parent="."]\nposition = Vector2(100, 40)\n\n'
             '[node name="Shape" type="CollisionShape2D" parent="Door"]\n'
             'shape = SubResource("RectangleShape2D_c0l1d")\n')
    theirs = text
    for n in (202, 40_009, 75_013, 98_017):
        theirs = edit_first_prop(theirs, "Item%d" % n, moved)
    theirs = nth_after(theirs, '[sub_resource type="CircleShape2D"', "radius = 6.0", "radius = 7.5")
    theirs = bump_load_steps(theirs)
    theirs = insert_after_last_sub_resource(
        theirs, '[sub_resource type="RectangleShape2D" id="RectangleShape2D_c0l1d"]\nsize = Vector2(4, 64)\n\n')
    theirs += ('\n[node name="Wall" type="StaticBody2D" parent="."]\nposition = Vector2(-20, 0)\n\n'
               '[node name="Shape" type="CollisionShape2D" parent="Wall"]\n'
               'shape = SubResource("RectangleShape2D_c0l1d")\n')
    return ours, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--mb", type=float, default=20.0, help="target size of each base in MB")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    target = int(a.mb * 1_000_000)
    for name, make, sides in (("mesh-heavy", gen_scenes.mesh_heavy, mesh_sides),
                              ("node-heavy", gen_scenes.node_heavy, node_sides)):
        base_path = os.path.join(a.out_dir, name + ".base.tscn")
        make(base_path, target)
        with open(base_path, newline="\n") as f:
            base = f.read()
        ours, theirs = sides(base)
        for side, text in (("ours", ours), ("theirs", theirs)):
            with open(os.path.join(a.out_dir, "%s.%s.tscn" % (name, side)), "w", newline="\n") as f:
                f.write(text)
        print("%s: %.1f MB" % (base_path, os.path.getsize(base_path) / 1e6))


if __name__ == "__main__":
    main()
