#!/usr/bin/env bash
# The merges-modern score: replays the real merges of ../shared/merges-modern (and, with
# --merges, ../shared/merges) through a tscn-merge binary and says, for git's conflicts,
# how many hold no true conflict and how many of those the merge resolves soundly.
#
# How each measure is defined (all from the tool's own semantic diff,
# `tscn-merge diff --format json`, of base against each side and against the result):
# - A change is keyed by its subject as base names it (a node by its base path: each
#   diff's renames and moves are undone first; a sub_resource by id, one both sides added
#   by its type and content; a connection by signal/from/to/method in base paths) and by
#   what it touches (a property key, a header field, a group, the node's name, parent,
#   or the whole part when added or removed). Its value is the new value as the diff
#   shows it. Long values are shortened by the diff: a key both sides changed to a cut
#   value counts as changed differently (it may be), one side's cut value is compared
#   as cut. Sibling reorders, `format` and `load_steps` are left out (order merges as
#   a sequence; the other two are derived from the content).
# - A node the diff shows removed and added at one base path is one node changed: the
#   root always (the root is the root whatever its `unique_id`), another node when its
#   type and instance are the same; in a diff that re-identified nodes so, the one removed
#   and the one added node of a type under one parent are that node renamed (the diff
#   pairs nodes by `unique_id`, which a side's re-save may have changed throughout).
# - Parts (issue 30's definition at the level of parts): a property whose value has parts
#   of its own is keyed part by part, read from the files themselves (the diff's parts
#   are summaries: a box of cells, frames by position): tile cells by coordinates
#   (TileMapLayer `tile_map_data`, TileMap `layer_N/tile_data`, Godot 3 `tile_data`), an
#   Animation's tracks by type and path (each field, each key by time), SpriteFrames
#   animations by name (each entry; `frames` one sequence, merged as git merges lines,
#   insertions at one place on both sides fine), dictionaries by entry. A value the diff
#   shortened (`…`) or summed up (`PackedByteArray(26 elements)`, `5 tracks`) is read in
#   full from the files as one part.
# - resolvable: a git conflict where no key (part) changed differently on both sides (the
#   same change on both is fine) and nothing one side removed is changed by the other (on
#   the part or, for a node, under it): issue 30's definition. The per-key measure of
#   earlier sessions is printed after it: there a value with parts that both sides
#   changed, or both changed to a value the diff cut or summed up, counts as changed
#   differently, and one side's such value is compared as the diff shows it.
# - sound: `merge` exits 0, `check` passes on the output, and every one-sided change
#   (base->ours where theirs kept base at that key, and vice versa) is in base->result
#   with the same value (a removal too: the result must remove it); an ext_resource's
#   `uid` changed on one side and its `path` moved on the other is read in the result
#   file when the result's diff shows the pair as removed and added.
# - losing: exits 0 and passes `check` but a one-sided change is missing or different.
# - broken: exits 0 but the output fails `check` (or the tool exits 2 / crashes).
# - conflicted: exits 1 (a resolvable one here is a gap of the tool).
# Git-clean scenarios: how many the merge changes against git's clean result (`diff` of
# git's result and ours finds a change, or ours conflicts); git results that `check`
# finds broken are counted apart.
#
#   scripts/modern-score.sh                 # merges-modern with target/release/tscn-merge
#   scripts/modern-score.sh --merges        # ../shared/merges as well
#   scripts/modern-score.sh --list          # also the folders of each class
#   scripts/modern-score.sh --why           # also each unresolved/losing folder's reason
#                                           # (and the folders the two measures class apart)
#   REPLAY_TOOL=/path/to/tscn-merge scripts/modern-score.sh
#   SCORE_JOBS=2 (parallel processes, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${TSCN_SHARED:-../shared}"
[ -d "$shared/merges-modern" ] || shared=/work/shared
exec python3 - "$shared" "${REPLAY_TOOL:-${CARGO_TARGET_DIR:-target}/release/tscn-merge}" "$@" <<'PY'
import collections, concurrent.futures, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.getcwd(), "scripts"))
from modern_score_parts import Seq, canon, index_file, parse_value, parts_of, seq_merge  # noqa: E402

shared, tool = sys.argv[1], os.path.abspath(sys.argv[2])
args = sys.argv[3:]
sets = ["merges-modern"] + (["merges"] if "--merges" in args else [])
if "--only-merges" in args:
    sets = ["merges"]
listing, why = "--list" in args, "--why" in args
debug = os.environ.get("SCORE_DEBUG", "") not in ("", "0")
jobs = int(os.environ.get("SCORE_JOBS", "2"))
if not os.access(tool, os.X_OK):
    sys.exit(f"modern-score: no binary at {tool} (build it or set REPLAY_TOOL)")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout


def diff(a, b):
    rc, out = run([tool, "diff", "--format", "json", "--color", "never", a, b])
    if rc not in (0, 1):
        return None
    try:
        return json.loads(out)
    except (ValueError, KeyError):
        return None


def parent_of(path):
    return "." if "/" not in path else path.rsplit("/", 1)[0]


def join(parent, name):
    return name if parent in (".", "") else parent + "/" + name


def path_map(changes):
    """side path -> base path, from the diff's renames and moves (prefixes too)."""
    pairs = []
    for c in changes:
        s = c["subject"]
        if s.get("kind") != "node":
            continue
        new = s.get("path", "")
        if c["kind"] == "renamed":
            pairs.append((new, join(parent_of(new), c.get("old") or "")))
        elif c["kind"] == "moved":
            pairs.append((new, join(c.get("old") or ".", new.rsplit("/", 1)[-1])))
    # Longest first, so a descendant's own rename wins over its ancestor's prefix.
    pairs.sort(key=lambda p: -len(p[0]))

    def to_base(path, _depth=0):
        if path in (".", "") or _depth > 64:
            return path
        for new, old in pairs:
            if path == new:
                # The old path's parent is itself in side naming.
                return join(to_base(parent_of(old), _depth + 1), old.rsplit("/", 1)[-1])
            if path.startswith(new + "/"):
                return to_base(new, _depth + 1) + path[len(new):]
        return path

    return to_base


SUB_REF = re.compile(r"SubResource\(([^)]*)\)")
NODE_PATH = re.compile(r'^NodePath\("([^":]*)(:[^"]*)?"\)$')


def rel_target(holder, rel):
    parts = [] if holder in (".", "") else holder.split("/")
    for step in rel.split("/"):
        if step == "..":
            if not parts:
                return None
            parts.pop()
        elif step not in (".", ""):
            parts.append(step)
    return "/".join(parts) or "."


def same_node_again(changes):
    """The changes with a node removed and added read as one node changed where the
    diff's pairing by `unique_id` missed it: at one base path, the root always (the root
    is the root whatever its `unique_id`) and another node when its type and instance
    are the same (a side that re-identified its nodes); then, in a diff that showed such
    re-identified nodes, the one removed and the one added node of a type under one
    parent as that node renamed. Parents first, so children follow their parent."""
    def node(c, kind):
        return c["subject"].get("kind") == "node" and c["kind"] == kind

    def like(r, a):
        rs, as_ = r["subject"], a["subject"]
        return (rs.get("type"), rs.get("instance")) == (as_.get("type"), as_.get("instance"))

    reidentified = False
    for _ in range(64):
        to_base = path_map(changes)
        gone = {to_base(c["subject"].get("path", "")): c for c in changes if node(c, "removed")}
        new = {to_base(c["subject"].get("path", "")): c for c in changes if node(c, "added")}
        pairs = [(gone[p], a) for p, a in new.items()
                 if p in gone and (p in (".", "") or like(gone[p], a))]
        renames = []
        if not pairs and reidentified:
            slots = collections.defaultdict(lambda: ([], []))
            for p, r in gone.items():
                slots[(parent_of(p), r["subject"].get("type"), r["subject"].get("instance"))][0].append(r)
            for p, a in new.items():
                if p in gone:
                    continue
                slots[(parent_of(p), a["subject"].get("type"), a["subject"].get("instance"))][1].append(a)
            renames = [(rs[0], as_[0]) for rs, as_ in slots.values() if len(rs) == len(as_) == 1]
        if not pairs and not renames:
            return changes
        # Shallowest first: a child is paired in a later round, under its paired parent.
        depth = lambda pa: pa[1]["subject"].get("path", "").count("/")
        top = min(map(depth, pairs + renames))
        chosen = [pa for pa in pairs + renames if depth(pa) == top]
        reidentified |= bool(pairs)
        done = {id(x) for pa in chosen for x in pa}
        changes = [c for c in changes if id(c) not in done]
        for r, a in chosen:
            changes.extend(node_changed(r, a))
    return changes


def node_changed(r, a):
    """The changes that turn removed node `r` into added node `a` (the same node)."""
    subj, out = a["subject"], []
    old_name = r["subject"].get("path", "").rsplit("/", 1)[-1]
    new_name = subj.get("path", "").rsplit("/", 1)[-1]
    if subj.get("path") not in (".", "") and old_name != new_name:
        out.append({"kind": "renamed", "old": old_name, "new": new_name, "subject": subj})
    for field in ("type", "instance"):
        if r["subject"].get(field) != subj.get(field):
            out.append({"kind": "field_changed", "key": field, "old": r["subject"].get(field),
                        "new": subj.get(field), "subject": subj})
    old = {p["key"]: p["value"] for p in r.get("properties") or []}
    now = {p["key"]: p["value"] for p in a.get("properties") or []}
    for k in sorted(old.keys() | now.keys()):
        if old.get(k) != now.get(k):
            out.append({"kind": "property_changed", "key": k, "old": old.get(k),
                        "new": now.get(k), "subject": subj})
    return out


def keyed(doc):
    """{key: value} for one diff, keys in base naming (see the top comment); with each
    key's part on this side (its locator) and how this side's sub_resource ids read in
    base naming."""
    changes = same_node_again(doc["changes"])
    to_base = path_map(changes)
    sub_base = {}
    for n in doc.get("noise") or []:
        m = re.match(r"sub_resource id (\S+) -> (\S+)$", n.get("detail", ""))
        if n.get("kind") == "id_renamed" and m:
            sub_base[m.group(2)] = m.group(1)
    added_subs = {c["subject"].get("id") for c in changes
                  if c["subject"].get("kind") == "sub_resource" and c["kind"] == "added"}

    def value(v, holder=None):
        """A value in base naming: sub_resource ids as base has them (a new one as `+`),
        a node's relative NodePath as the base path of the node it names."""
        if not isinstance(v, str):
            return v
        m = NODE_PATH.match(v)
        if m and holder is not None and not m.group(1).startswith(("/", "%")):
            target = rel_target(holder, m.group(1))
            if target is not None:
                return ("NodePath->", to_base(target), m.group(2) or "")
        return SUB_REF.sub(lambda r: "SubResource(%s)" % (
            "+" if r.group(1) in added_subs else sub_base.get(r.group(1), r.group(1))), v)

    # An ext_resource whose path changed is named by its base path.
    ext_old = {c["new"]: c["old"] for c in changes
               if c["subject"].get("kind") == "ext_resource" and c["kind"] == "field_changed"
               and c.get("key") == "path"}
    out, loc = {}, {}
    for c in changes:
        s, kind = c["subject"], c["kind"]
        sk = s.get("kind")
        if kind == "reordered":
            continue
        holder = s.get("path", "") if sk == "node" else None
        props = tuple(sorted((p["key"], value(p["value"], holder)) for p in c.get("properties") or []))
        if sk == "header" and c.get("key") in ("format", "load_steps"):
            continue
        if sk == "node":
            subj = ("node", to_base(s.get("path", "")))
        elif sk == "sub_resource":
            if kind == "added":
                # A new sub_resource by its type and content, whatever the ids it names.
                props = tuple((k, SUB_REF.sub("SubResource(*)", v) if isinstance(v, str) else v)
                              for k, v in props)
                subj = ("sub_resource+", s.get("type"), props)
            else:
                subj = ("sub_resource", sub_base.get(s.get("id"), s.get("id")))
        elif sk == "connection":
            subj = ("connection", s.get("signal"), to_base(s.get("from", "")),
                    to_base(s.get("to", "")), s.get("method"))
        elif sk == "ext_resource":
            subj = (sk, ext_old.get(s.get("path"), s.get("path")))
        elif sk == "editable":
            subj = (sk, to_base(s.get("path", "")))
        else:
            subj = (sk,)
        if kind in ("added", "removed"):
            key, val = "(%s)" % kind, (s.get("type"), s.get("instance"), props)
        elif kind == "renamed":
            key, val = "(name)", c.get("new")
        elif kind == "moved":
            key, val = "(parent)", to_base(c.get("new") or ".")
        elif kind in ("group_added", "group_removed"):
            key, val = "group:" + c.get("key", ""), kind
        elif kind == "field_changed":
            key, val = "field:" + c.get("key", ""), value(c.get("new"))
        else:
            key, val = "prop:" + c.get("key", ""), value(c.get("new"), holder)
        out[(subj, key)] = val
        if key.startswith("prop:") and sk in ("node", "sub_resource", "resource"):
            loc[(subj, key)] = (("node", s.get("path", "")) if sk == "node" else
                                ("sub_resource", s.get("id")) if sk == "sub_resource" else ("resource",))
    subref = lambda i: "+" if i in added_subs else sub_base.get(i, i)
    return out, loc, subref


ABSENT = "(absent)"


def split_parts(sides, files_):
    """The keyed sides (ours, theirs, then the result when given) with every property
    whose value has parts (tile cells, an Animation's tracks and their keys, SpriteFrames
    animations and frames, a dictionary's entries) changed by a side replaced by the
    parts that side changed, read from the files (`files_`: base's, then each side's).
    A part one side removed reads as `(absent)`, so it differs from the other side's
    change of it; an animation's frames are one part merged as a sequence."""
    index = {}

    def props(i, locator):
        if i not in index:
            index[i] = index_file(files_[i])
        entry = index[i][0].get(locator)
        return entry

    def refs_of(i, subref):
        ext = index[i][1]
        return lambda kind, ref: ("Ext(%s)" % ext.get(ref, ref) if kind == "ExtResource"
                                  else "Sub(%s)" % subref(ref))

    props(0, None)
    base_refs = refs_of(0, lambda r: r)
    out = [dict(k) for k, _, _ in sides]
    todo = {key for keys, _, _ in sides[:2] for key in keys
            if len(key) == 2 and key[1].startswith("prop:")
            and key[0][0] in ("node", "sub_resource", "resource")}
    for k in sorted(todo, key=repr):
        subj, key = k[0], k[1][5:]
        base = props(0, subj)
        if not base:
            continue
        whole = any(cut(keys.get(k)) for keys, _, _ in sides[:2])
        pb = parts_of(key, base[0], base[1], base_refs, whole)
        if pb is None:
            continue
        got = []
        for i, (keys, loc, subref) in enumerate(sides):
            if k not in keys:
                got.append(pb)
                continue
            entry = loc.get(k) and props(i + 1, loc[k])
            got.append(entry and parts_of(key, entry[0] or base[0], entry[1], refs_of(i + 1, subref), whole))
        if any(g is None for g in got):
            continue
        for d, ps in zip(out, got):
            d.pop(k, None)
            for p in pb.keys() | ps.keys():
                b, v = pb.get(p, ABSENT), ps.get(p, ABSENT)
                if b != v:
                    d[(subj, k[1], p)] = ("seq", b, v) if isinstance(v, Seq) and isinstance(b, Seq) else v
    return out


def removed_under(d):
    """Subjects a side removed (nodes by base path)."""
    return [k[0] for k in d if k[1] == "(removed)"]


def touches(subj, removed):
    if subj == removed:
        return True
    return (subj[0] == removed[0] == "node" and removed[1] not in (".", "")
            and subj[1].startswith(removed[1] + "/"))


def is_seq(v):
    return isinstance(v, tuple) and len(v) == 3 and v[0] == "seq"


def differently(a, b):
    """Whether two sides' changes of one key differ (two sequences: whether they clash)."""
    if is_seq(a) and is_seq(b):
        return seq_merge(a[1], a[2], b[2]) is None
    return a != b or cut(a)


def resolvable(do, dt):
    for k in do.keys() & dt.keys():
        if differently(do[k], dt[k]):
            return False, f"both changed {k[0][0]} {k[0][1:2]} {k[1]}" + (f" {k[2]}" if len(k) > 2 else "")
    for a, b in ((do, dt), (dt, do)):
        for r in removed_under(a):
            for k in b:
                if touches(k[0], r) and k[1] != "(removed)":
                    return False, f"removed on one side, changed on the other: {r}"
    return True, ""


SUMMARY = re.compile(r"[\w\[\]]+\(\d+ elements?\)|\d+ tracks?")


def cut(v):
    """Whether the diff shortened a value (`…`) or summed it up (`PackedByteArray(26
    elements)`, `5 tracks`): two such values that read alike may differ."""
    return "\u2026" in repr(v) or "\u2026" in str(v) or bool(SUMMARY.fullmatch(str(v)))


def one_sided(do, dt):
    """Changes one side made where the other kept base (and did not remove the part)."""
    for a, b in ((do, dt), (dt, do)):
        gone = removed_under(b)
        for k, v in a.items():
            if k not in b and not any(touches(k[0], r) for r in gone):
                yield k, v


MISSING = object()  # a key the result did not change (a removal's value is None)


def kept(k, v, dr):
    """Whether the result holds one side's change `k` = `v`."""
    if dr.get(k, MISSING) == v:
        return True
    # An ext_resource whose path changed may read, in the result, as the old one removed
    # and the new one added (a side's uid dropped with it).
    # A new sub_resource may be written merged into the other side's of one type that
    # holds all of it (both sides embedded the same resource, one a superset).
    if k[0][0] == "sub_resource+":
        props = set(k[0][2])
        return any(r[0][0] == "sub_resource+" and r[0][1] == k[0][1] and props <= set(r[0][2])
                   for r in dr)
    if k[0][0] == "ext_resource" and k[1] == "field:path":
        return (("ext_resource", v), "(added)") in dr and (k[0], "(removed)") in dr
    return False


def uid_kept(k, v, do, dt, dr, uids):
    """An ext_resource's `uid` one side changed while the other moved its `path`: the
    result's diff may read the two as the old one removed and the new one added, and
    shows no uids; the result file says which uid the new path has."""
    if k[0][0] != "ext_resource" or k[1] != "field:uid" or (k[0], "(removed)") not in dr:
        return False
    moved = do.get((k[0], "field:path")) or dt.get((k[0], "field:path"))
    return moved is not None and (("ext_resource", moved), "(added)") in dr and uids.get(moved) == v


def files(d):
    names = os.listdir(d)
    ext = next((n.split(".", 1)[1] for n in names if n.startswith("base.")), "tscn")
    return [os.path.join(d, f"{s}.{ext}") for s in ("base", "ours", "theirs", "git_diff3")], ext


def score(job):
    name, d, conflict = job
    (base, ours, theirs, git), ext = files(d)
    with tempfile.TemporaryDirectory(prefix="modern-score-") as tmp:
        out = os.path.join(tmp, "out." + ext)
        rc, _ = run([tool, "merge", "-q", "-o", out, base, ours, theirs])
        valid = rc == 0 and run([tool, "check", out])[0] == 0
        if not conflict:
            if run([tool, "check", git])[0] != 0:
                return name, "git_broken", "ours valid" if valid else "ours not valid"
            if rc != 0:
                return name, "differs", "we conflict"
            if not valid:
                return name, "differs", "our result fails check"
            r, _ = run([tool, "diff", git, out])
            return name, ("differs" if r != 0 else "same"), ""
        do, dt = diff(base, ours), diff(base, theirs)
        if do is None or dt is None:
            return name, "unreadable", "a side does not diff", "unreadable"
        so, st = keyed(do), keyed(dt)
        dr = diff(base, out) if rc == 0 and valid else None
        sr = keyed(dr) if dr is not None else None
        uids = result_uids(out) if sr else {}
        per_key = outcome(so[0], st[0], sr and sr[0], rc, valid, uids)
        sides = [so, st] + ([sr] if sr else [])
        split = split_parts(sides, [base, ours, theirs, out])
        by_part = outcome(split[0], split[1], split[2] if sr else None, rc, valid, uids)
        return (name,) + by_part + (per_key[0],)


def result_uids(path):
    """{ext_resource path: its uid (None: none)} of the result file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        heads = [l for l in f if l.startswith("[ext_resource")]
    field = lambda h, n: (re.search(r' %s="([^"]*)"' % n, h) or [None, None])[1]
    return {field(h, "path"): field(h, "uid") for h in heads}


def outcome(do, dt, dr, rc, valid, uids):
    """(class, reason) of one conflicted merge under one keying of its changes; `uids`:
    the result's ext_resource uids by path."""
    ok, reason = resolvable(do, dt)
    prefix = "resolvable" if ok else "true"
    if rc == 1:
        return prefix + ":conflicted", reason
    if rc != 0 or not valid:
        return prefix + ":broken", f"exit {rc}" if rc != 0 else "fails check"
    if dr is None:
        return prefix + ":broken", "result does not diff"
    lost = [f"{k[0][0]} {k[0][1:2]} {k[1]}" + (f" {k[2]}" if len(k) > 2 else "")
            + (f" = {str(v)[:60]!r}, result {str(dr.get(k))[:60]!r}" if debug else "")
            for k, v in one_sided(do, dt) if not kept(k, v, dr) and not uid_kept(k, v, do, dt, dr, uids)]
    # A sequence both sides changed (an animation's frames): the result holds the merge.
    for k in do.keys() & dt.keys():
        if is_seq(do[k]) and is_seq(dt[k]) and do[k] != dt[k]:
            merged = seq_merge(do[k][1], do[k][2], dt[k][2])
            if not is_seq(dr.get(k)) or dr[k][2] != merged:
                lost.append(f"{k[0][0]} {k[0][1:2]} {k[1]} {k[2]} (both sides' frames)")
    if lost:
        return prefix + ":losing", "; ".join(lost[:3])
    return prefix + ":sound", reason


for set_name in sets:
    root = os.path.join(shared, set_name)
    with open(os.path.join(root, "SUMMARY.tsv"), encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, l.rstrip("\n").split("\t"))) for l in f if l.strip()]
    todo = [(r["id"], os.path.join(root, r["id"]), r["git_conflicts"] != "0") for r in rows]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = sorted(pool.map(score, todo))
    by, by_key = collections.defaultdict(list), collections.defaultdict(list)
    apart = []
    for name, cls, reason, *key_cls in results:
        by[cls].append((name, reason))
        by_key[key_cls[0] if key_cls else cls].append((name, ""))
        if key_cls and key_cls[0] != cls:
            apart.append(f"  by parts {cls}, per key {key_cls[0]}\t{name}")
    conflicts = sum(1 for t in todo if t[2])
    outcomes = ("sound", "losing", "broken", "conflicted")
    print(f"{set_name} ({tool})")
    for label, b in (("", by), ("per key (stricter) ", by_key)):
        n = lambda *cs: sum(len(b[c]) for c in cs)
        res = n(*("resolvable:" + o for o in outcomes))
        print(f"  {label}git conflicts {conflicts}: resolvable {res}, of those sound {n('resolvable:sound')}, "
              f"losing {n('resolvable:losing')}, broken {n('resolvable:broken')}, "
              f"still conflicted {n('resolvable:conflicted')}")
        if label:
            continue
        print(f"  with a true conflict {n(*('true:' + o for o in outcomes))}: clean {n('true:sound', 'true:losing')} "
              f"(losing {n('true:losing')}), broken {n('true:broken')}, conflicted {n('true:conflicted')}"
              + (f"; unreadable {n('unreadable')}" if b["unreadable"] else ""))
        print(f"  all git conflicts: losing {n('resolvable:losing', 'true:losing')}, "
              f"broken {n('resolvable:broken', 'true:broken')}")
    n = lambda *cs: sum(len(by[c]) for c in cs)
    clean = len(todo) - conflicts
    print(f"  git clean {clean}: same scene as git {n('same')}, changed by our merge {n('differs')}, "
          f"git's own result broken {n('git_broken')} (ours valid on "
          f"{sum(1 for _, r in by['git_broken'] if r == 'ours valid')})")
    if listing or why:
        for cls in sorted(by):
            if cls in ("same", "true:conflicted") and not listing:
                continue
            if not listing and cls.endswith(":sound"):
                continue
            for name, reason in by[cls]:
                print(f"  {cls}\t{name}" + (f"\t{reason}" if why and reason else ""))
        print("\n".join(apart))
PY
