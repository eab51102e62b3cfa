#!/usr/bin/env python3
"""Generate two big, deterministic Godot 4 (format=3) scenes for the parse benchmark.

    scripts/gen-scenes.py OUT_DIR [--mb 20] [--unique-ids] [--edit] [--nodes-only]

writes OUT_DIR/mesh-heavy.tscn (ArrayMesh sub_resources with large PackedVector3Array,
PackedFloat32Array, PackedVector2Array and PackedInt32Array bodies) and
OUT_DIR/node-heavy.tscn (~100,000 small nodes with a few properties each). Same bytes on
every run (a fixed xorshift seed), so figures are comparable between machines.

--unique-ids gives every node of node-heavy a Godot 4.6 `unique_id=` (as the editor
writes it, after `parent=`); --edit writes the "after" side of a diff benchmark instead:
the same scene with every 5,000th item moved, one item renamed and one node added at the
end (unique_ids unchanged, so the two sides pair by id).
"""
import argparse
import os


class XorShift:
    def __init__(self, seed=0x9E3779B97F4A7C15):
        self.s = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        x = self.s
        x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
        self.s = x
        return x

    def unit(self):
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n):
        return self.next() % n


def fmt(x):
    # Godot 4 prints floats with up to ~9 significant digits and drops trailing zeros.
    s = "%.7g" % x
    if "e" in s:
        s = "%.7f" % x
    s = s.rstrip("0").rstrip(".") if "." in s else s
    return "0" if s in ("-0", "") else s


ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"


def rid(rng):
    return "".join(ID_CHARS[rng.below(len(ID_CHARS))] for _ in range(5))


def mesh_heavy(path, target):
    rng = XorShift(1)
    out = []
    n_mesh = 40
    verts = max(64, target // n_mesh // 152)  # ~120 bytes of text per vertex, all arrays
    ids = []
    out.append('[gd_scene load_steps=%d format=3 uid="uid://bench0meshheavy"]\n\n' % (n_mesh + 2))
    out.append('[ext_resource type="Material" uid="uid://bench0material" path="res://bench/rock.tres" id="1_m4t3r"]\n\n')
    for m in range(n_mesh):
        sid = "ArrayMesh_%s" % rid(rng)
        ids.append(sid)
        v = ", ".join(fmt(rng.unit() * 20 - 10) for _ in range(verts * 3))
        nrm = ", ".join(fmt(rng.unit() * 2 - 1) for _ in range(verts * 3))
        tan = ", ".join(fmt(rng.unit() * 2 - 1) for _ in range(verts * 4))
        uv = ", ".join(fmt(rng.unit()) for _ in range(verts * 2))
        idx = ", ".join(str(rng.below(verts)) for _ in range(verts * 3))
        out.append('[sub_resource type="ArrayMesh" id="%s"]\n' % sid)
        out.append('resource_name = "chunk_%d"\n' % m)
        out.append("_surfaces = [{\n")
        out.append('"aabb": AABB(-10, -10, -10, 20, 20, 20),\n')
        out.append('"arrays": [PackedVector3Array(%s), PackedVector3Array(%s), PackedFloat32Array(%s), null, PackedVector2Array(%s), null, null, null, null, null, null, null, PackedInt32Array(%s)],\n' % (v, nrm, tan, uv, idx))
        out.append('"material": ExtResource("1_m4t3r"),\n')
        out.append('"name": "chunk_%d",\n"primitive": 3\n}]\n\n' % m)
    out.append('[node name="Terrain" type="Node3D"]\n\n')
    for m, sid in enumerate(ids):
        out.append('[node name="Chunk%d" type="MeshInstance3D" parent="."]\n' % m)
        out.append("transform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, %d, 0, %d)\n" % (m % 8 * 20, m // 8 * 20))
        out.append('mesh = SubResource("%s")\n\n' % sid)
    with open(path, "w", newline="\n") as f:
        f.write("".join(out).rstrip("\n") + "\n")


def node_heavy(path, target, unique_ids=False, edit=False):
    rng = XorShift(2)
    ids = XorShift(3)
    used = set()

    def uid():
        # A fresh id in Godot's range (1..2^31-1), the same sequence on every run.
        while True:
            v = ids.below((1 << 31) - 2) + 1
            if v not in used:
                used.add(v)
                return " unique_id=%d" % v

    def hdr(name, typ, parent, extra=""):
        parent = ' parent="%s"' % parent if parent is not None else ""
        return '[node name="%s" type="%s"%s%s%s]\n' % (
            name, typ, parent, uid() if unique_ids else "", extra)

    out = ['[gd_scene load_steps=4 format=3 uid="uid://bench0nodeheavy"]\n\n']
    out.append('[ext_resource type="Texture2D" uid="uid://bench0tiles" path="res://bench/tiles.png" id="1_t1l3s"]\n')
    out.append('[ext_resource type="Script" path="res://bench/pickup.gd" id="2_p1ckp"]\n\n')
    out.append('[sub_resource type="CircleShape2D" id="CircleShape2D_b3nch"]\nradius = 6.0\n\n')
    out.append(hdr("Level", "Node2D", None) + "\n")
    size = sum(len(s) for s in out)
    rooms = 0
    n = 0
    while size < target:
        # A room every 50 nodes; items inside rooms; a collision child now and then.
        if n % 50 == 0:
            rooms += 1
            room = "Room%d" % rooms
            chunk = [hdr(room, "Node2D", "."),
                     "position = Vector2(%d, %d)\n\n" % (rooms % 40 * 512, rooms // 40 * 512)]
        else:
            name = "Item%d" % n
            if edit and n == 25_001:
                name = "Renamed%d" % n
            kind = rng.below(3)
            if kind == 0:
                x, y = fmt(rng.unit() * 512), fmt(rng.unit() * 512)
                if edit and n % 5000 == 17:
                    x = fmt(float(x) + 3)
                chunk = [hdr(name, "Sprite2D", room),
                         "position = Vector2(%s, %s)\n" % (x, y),
                         'texture = ExtResource("1_t1l3s")\n',
                         "region_enabled = true\n",
                         "region_rect = Rect2(%d, %d, 16, 16)\n\n" % (rng.below(16) * 16, rng.below(16) * 16)]
            elif kind == 1:
                chunk = [hdr(name, "Area2D", room, ' groups=["pickups"]'),
                         "position = Vector2(%s, %s)\n" % (fmt(rng.unit() * 512), fmt(rng.unit() * 512)),
                         'script = ExtResource("2_p1ckp")\n',
                         "value = %d\n\n" % rng.below(100),
                         hdr("Shape", "CollisionShape2D", "%s/%s" % (room, name)),
                         'shape = SubResource("CircleShape2D_b3nch")\n\n']
            else:
                chunk = [hdr(name, "Label", room),
                         "offset_right = %s\n" % fmt(40 + rng.unit() * 100),
                         "offset_bottom = 23.0\n",
                         'text = "Sign #%d: \\"%s\\""\n\n' % (n, rid(rng))]
        out.extend(chunk)
        size += sum(len(s) for s in chunk)
        n += 1
    if edit:
        out.append("\n" + hdr("Added", "Node2D", "."))
    with open(path, "w", newline="\n") as f:
        f.write("".join(out).rstrip("\n") + "\n")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--mb", type=float, default=20.0, help="target size of each file in MB")
    ap.add_argument("--unique-ids", action="store_true", help="unique_id= on every node")
    ap.add_argument("--edit", action="store_true", help="write the edited (after) side")
    ap.add_argument("--nodes-only", action="store_true", help="only node-heavy.tscn")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    target = int(a.mb * 1_000_000)
    names = ["node-heavy.tscn"]
    if not a.nodes_only:
        mesh_heavy(os.path.join(a.out_dir, "mesh-heavy.tscn"), target)
        names.insert(0, "mesh-heavy.tscn")
    n = node_heavy(os.path.join(a.out_dir, "node-heavy.tscn"), target, a.unique_ids, a.edit)
    for name in names:
        p = os.path.join(a.out_dir, name)
        print("%s: %.1f MB" % (p, os.path.getsize(p) / 1e6))
    print("node-heavy: %d nodes" % n)


if __name__ == "__main__":
    main()
