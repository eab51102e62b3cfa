#!/usr/bin/env python3
"""Write the limits case of issue 14 §10: a scene whose GDScript `script/source` is N lines
long (default 1,000,000, about 20.8 MB), reversed in ours; theirs changes one line of it
and adds a property to the root node. The same inputs as `tests/hostile_limits.rs`
(there with N = 100,000).

    scripts/gen-long-string.py OUT_DIR [N]

Writes OUT_DIR/base.tscn, ours.tscn and theirs.tscn.
"""
import os
import sys

HEAD = '[gd_scene load_steps=2 format=3]\n\n[sub_resource type="GDScript" id="GDScript_1"]\n'
ROOT = '\n[node name="Root" type="Node"]\nscript = SubResource("GDScript_1")\n'
THEIR_PROP = 'editor_description = "theirs"\n'


def prop(lines):
    return 'script/source = "extends Node\n' + "\n".join(lines) + '\n"\n'


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    base = [f"\tvar v{i} = {i * 7919 % 100_003}" for i in range(n)]
    ours = base[::-1]
    theirs = list(base)
    theirs[5] = "\tvar changed = 1"
    os.makedirs(out, exist_ok=True)
    texts = {
        "base.tscn": HEAD + prop(base) + ROOT,
        "ours.tscn": HEAD + prop(ours) + ROOT,
        "theirs.tscn": HEAD + prop(theirs) + ROOT + THEIR_PROP,
    }
    for name, text in texts.items():
        with open(os.path.join(out, name), "w", newline="\n") as f:
            f.write(text)


if __name__ == "__main__":
    main()
