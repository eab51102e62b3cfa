#!/usr/bin/env python3
"""Count the conflict hunks a tscn-merge binary leaves on saved editor state.

  scripts/state-hunks.py [BINARY] [--list]

Merges every scenario of ../shared/merges-modern and ../shared/merges (base, ours,
theirs; `merge --style diff3 --explain=json`). A conflict is on state when its report names
a Skeleton3D bone pose (`bones/N/position|rotation|scale|pose`) or `frame`/`frame_progress`
as its property; after a line-merge fallback (no reports) a hunk is on state when a line
between its markers is one. A node conflict whose hunk happens to hold such a line (a node
deleted on one side) is not. `--list` names the scenarios that still have one. Prints, per
set: scenarios merged (by exit code), hunks, conflicts on state (bones, frames).
"""
import json, os, re, subprocess, sys, tempfile

args = [a for a in sys.argv[1:] if not a.startswith("--")]
listing = "--list" in sys.argv
tool = os.path.abspath(args[0] if args else os.path.join(
    os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tscn-merge"))
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
shared = os.environ.get("TSCN_SHARED") or os.path.join(root, "..", "shared")
if not os.path.isdir(os.path.join(shared, "merges-modern")):
    shared = "/work/shared"
BONE = re.compile(r"^bones/\d+/(position|rotation|scale|pose)( = |$)")
FRAME = re.compile(r"^(frame|frame_progress)( = |$)")


def hunks(text):
    """Each hunk's lines between its markers."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("<<<<<<< "):
            cur = []
        elif line.startswith(">>>>>>> ") and cur is not None:
            out.append(cur)
            cur = None
        elif cur is not None and not line.startswith(("|||||||", "=======")):
            cur.append(line)
    return out


def conflict_reports(err):
    """The structural merge's conflict reports from `--explain=json` (`None`: a line merge)."""
    text = err.decode("utf-8", "replace")
    dec, i = json.JSONDecoder(), 0
    while i < len(text):
        rest = text[i:].lstrip()
        if not rest:
            break
        try:
            doc, n = dec.raw_decode(rest)
        except ValueError:
            return None
        i = len(text) - len(rest) + n
        if isinstance(doc, dict) and "conflict_reports" in doc:
            return doc["conflict_reports"] if doc.get("method") == "structural" else None
    return None


for set_name in ("merges-modern", "merges"):
    d = os.path.join(shared, set_name)
    names = sorted(n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n)))
    total = bones = frames = 0
    exits, named = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            sd = os.path.join(d, n)
            files = os.listdir(sd)
            ext = next(f.split(".", 1)[1] for f in files if f.startswith("base."))
            sides = [os.path.join(sd, f"{s}.{ext}") for s in ("base", "ours", "theirs")]
            out = os.path.join(tmp, "out." + ext)
            p = subprocess.run([tool, "merge", "-q", "--style", "diff3", "--explain=json", "-o", out]
                               + sides, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            exits[p.returncode] = exits.get(p.returncode, 0) + 1
            if p.returncode != 1:
                continue
            with open(out, encoding="utf-8", errors="replace") as f:
                hs = hunks(f.read())
            total += len(hs)
            reports = conflict_reports(p.stderr)
            if reports is not None:
                props = [r.get("property") or "" for r in reports]
                b = sum(1 for x in props if BONE.match(x))
                fr = sum(1 for x in props if FRAME.match(x))
            else:
                b = sum(1 for h in hs if any(BONE.match(l) for l in h))
                fr = sum(1 for h in hs if not any(BONE.match(l) for l in h)
                         and any(FRAME.match(l) for l in h))
            bones, frames = bones + b, frames + fr
            if b or fr:
                named.append(f"  {n}: {b} bone, {fr} frame conflict(s)")
    print(f"{set_name}: {len(names)} merged (exit {dict(sorted(exits.items()))}), "
          f"{total} hunks, on state {bones + frames} (bones {bones}, frames {frames})")
    if listing:
        print("\n".join(named))
