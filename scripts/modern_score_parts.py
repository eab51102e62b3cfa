"""Parts of Godot values for scripts/modern-score.sh (tile cells, Animation tracks and
keys, SpriteFrames animations and frames, dictionaries), read from the files themselves:
the diff's parts are summaries (a box of cells, frames by position), not keys. Decides
what a part is and how a sequence of frames merges; which parts count as a true
conflict, and the score, are the script's."""
import base64
import collections
import re
import struct


def join(parent, name):
    return name if parent in (".", "") else parent + "/" + name


def parse_value(s):
    """A Godot value as a tree: ('call', name, [args]), ('arr', [items]), ('dict',
    [(k, v)]), ('atom', text); ValueError when it does not read."""
    pos = [0]
    n = len(s)

    def ws():
        while pos[0] < n and s[pos[0]] in " \t\r\n":
            pos[0] += 1

    def item():
        ws()
        if pos[0] >= n:
            raise ValueError("end")
        c = s[pos[0]]
        if c in "&^" and pos[0] + 1 < n and s[pos[0] + 1] == '"':
            pos[0] += 1
            return ("atom", c + string())
        if c == '"':
            return ("atom", string())
        if c == "[":
            pos[0] += 1
            return ("arr", seq("]"))
        if c == "{":
            pos[0] += 1
            out = []
            while True:
                ws()
                if pos[0] < n and s[pos[0]] == "}":
                    pos[0] += 1
                    return ("dict", out)
                k = item()
                ws()
                if pos[0] >= n or s[pos[0]] != ":":
                    raise ValueError("colon")
                pos[0] += 1
                out.append((k, item()))
                ws()
                if pos[0] < n and s[pos[0]] == ",":
                    pos[0] += 1
        start = pos[0]
        while pos[0] < n and s[pos[0]] not in " \t\r\n,:()[]{}\"":
            pos[0] += 1
        word = s[start:pos[0]]
        if not word:
            raise ValueError("token")
        if pos[0] < n and s[pos[0]] == "[":  # Array[T]( / Dictionary[K, V](
            depth = 0
            while pos[0] < n:
                depth += {"[": 1, "]": -1}.get(s[pos[0]], 0)
                pos[0] += 1
                if depth == 0:
                    break
        if pos[0] < n and s[pos[0]] == "(":
            pos[0] += 1
            args = seq(")")
            if word in ("Array", "Dictionary") and len(args) == 1:
                return args[0]
            return ("call", word, args)
        return ("atom", word)

    def string():
        start = pos[0]
        pos[0] += 1
        while pos[0] < n and s[pos[0]] != '"':
            pos[0] += 2 if s[pos[0]] == "\\" else 1
        pos[0] += 1
        return s[start:pos[0]]

    def seq(close):
        out = []
        while True:
            ws()
            if pos[0] < n and s[pos[0]] == close:
                pos[0] += 1
                return out
            out.append(item())
            ws()
            if pos[0] < n and s[pos[0]] == ",":
                pos[0] += 1
            elif pos[0] < n and s[pos[0]] != close:
                raise ValueError("separator")

    v = item()
    ws()
    if pos[0] != n:
        raise ValueError("trailing")
    return v


def canon(t, refs):
    """A tree as comparable text, references named as `refs` names them."""
    k = t[0]
    if k == "atom":
        a = t[1]
        try:
            f = float(a)
            return repr(f) if a[0].isdigit() or a[0] in "-." else a
        except ValueError:
            return a
    if k == "arr":
        return "[" + ", ".join(canon(x, refs) for x in t[1]) + "]"
    if k == "dict":
        return "{" + ", ".join(canon(a, refs) + ": " + canon(b, refs) for a, b in t[1]) + "}"
    if t[1] in ("ExtResource", "SubResource") and len(t[2]) == 1:
        return refs(t[1], t[2][0][1].strip('"'))
    return t[1] + "(" + ", ".join(canon(x, refs) for x in t[2]) + ")"


def sections(text):
    """[(tag, {field: raw}, [(key, raw value)])] of a .tscn/.tres text."""
    out, i, n = [], 0, len(text)
    cur = None
    while i < n:
        j = text.find("\n", i)
        j = n if j < 0 else j
        line = text[i:j]
        if line.startswith("["):
            end = i + value_end(text, i)
            out.append((header(text[i:end]), []))
            cur = out[-1][1]
            i = end
            continue
        eq = line.find(" = ")
        if cur is not None and eq > 0 and not line.startswith(";"):
            start = i + eq + 3
            end = start + value_end(text, start)
            cur.append((line[:eq].strip().strip('"'), text[start:end]))
            i = end
            continue
        i = j + 1
    return out


def value_end(text, start):
    """Length of the balanced value (or `[...]` header) at `start`, to the end of its line."""
    depth, i, n, instr = 0, start, len(text), False
    while i < n:
        c = text[i]
        if instr:
            if c == "\\":
                i += 1
            elif c == '"':
                instr = False
        elif c == '"':
            instr = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "\n" and depth <= 0:
            return i - start
        i += 1
    return n - start


HEADER_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^ \]]+(?:\([^)]*\))?)')


def header(h):
    m = re.match(r"\[(\w+)", h)
    fields = {k: v.strip('"') for k, v in HEADER_FIELD.findall(h[len(m.group(0)):] if m else h)}
    return (m.group(1) if m else "", fields)


def index_file(path):
    """The file's parts by locator: ('node', side path), ('sub_resource', id),
    ('resource',); each -> (type, {key: raw}); plus the ext_resource id -> path map."""
    with open(path, encoding="utf-8", errors="replace") as f:
        secs = sections(f.read())
    parts, ext, resource_type = {}, {}, None
    for (tag, fields), props in secs:
        if tag == "ext_resource":
            ext[fields.get("id", "")] = fields.get("path", "")
        elif tag == "node":
            name, parent = fields.get("name", ""), fields.get("parent")
            p = "." if parent is None else join(parent, name)
            parts[("node", p)] = (fields.get("type"), dict(props))
        elif tag == "sub_resource":
            parts[("sub_resource", fields.get("id", ""))] = (fields.get("type"), dict(props))
        elif tag == "resource":
            parts[("resource",)] = (resource_type, dict(props))
        elif tag in ("gd_resource", "gd_scene"):
            resource_type = fields.get("type")
    return parts, ext


def cells_of(key, raw):
    """{(x, y): tile} of a tile map value, None if it is not one."""
    t = parse_value(raw)
    if t[0] != "call":
        return None
    if t[1] == "PackedByteArray":
        args = t[2]
        if len(args) == 1 and args[0][1].startswith('"'):
            data = base64.b64decode(args[0][1].strip('"'))
        else:
            data = bytes(int(a[1]) & 0xFF for a in args)
        if len(data) < 2 or (len(data) - 2) % 12:
            return None
        out = {}
        for r in range(2, len(data), 12):
            x, y, *rest = struct.unpack("<hhHHHH", data[r:r + 12])
            out[(x, y)] = tuple(rest)
        return out
    if t[1] in ("PackedInt32Array", "PoolIntArray"):
        ints = [int(a[1]) for a in t[2]]
        width = 3 if key != "tile_data" or len(ints) % 3 == 0 else 2
        out = {}
        for r in range(0, len(ints) - width + 1, width):
            out[ints[r]] = tuple(ints[r + 1:r + width])
        return out
    return None


def dict_parts(raw, refs, prefix=()):
    t = parse_value(raw)
    if t[0] != "dict":
        return None
    return {prefix + ("entry", canon(k, refs)): canon(v, refs) for k, v in t[1]}


def keys_parts(t, refs, track_type):
    """A track's keys by time (and the keys dictionary's other entries)."""
    out = {}
    if t[0] == "dict":
        d = {canon(k, refs).strip('"'): v for k, v in t[1]}
        times = d.get("times")
        if times is None or times[0] not in ("call", "arr"):
            return None
        times = times[2] if times[0] == "call" else times[1]
        n = len(times)
        seen = collections.Counter()
        for name, v in d.items():
            items = v[2] if v[0] == "call" else v[1] if v[0] == "arr" else None
            if items is None or n == 0 or len(items) % n:
                out[("keys:" + name,)] = canon(v, refs)
                continue
            w = len(items) // n
            for i in range(n):
                tm = canon(times[i], refs)
                seen_key = (tm, name)
                seen[seen_key] += 1
                out[("key", tm, seen[seen_key], name)] = [canon(x, refs) for x in items[i * w:(i + 1) * w]]
        return {k: repr(v) if isinstance(v, list) else v for k, v in out.items()}
    stride = {"transform": 12, "position_3d": 5, "scale_3d": 5, "rotation_3d": 6, "blend_shape": 3}.get(track_type)
    if t[0] == "call" and stride and len(t[2]) % stride == 0:
        floats = [canon(x, refs) for x in t[2]]
        seen = collections.Counter()
        for i in range(0, len(floats), stride):
            seen[floats[i]] += 1
            out[("key", floats[i], seen[floats[i]], "*")] = repr(floats[i + 1:i + stride])
        return out
    return None


def tracks_parts(props, refs):
    """An Animation's tracks by type and path: each field, and each key by time."""
    tracks = collections.defaultdict(dict)
    for k, v in props.items():
        m = re.match(r"tracks/(\d+)/(.+)$", k)
        if m:
            tracks[int(m.group(1))][m.group(2)] = v
    out, seen = {}, collections.Counter()
    for i in sorted(tracks):
        f = tracks[i]
        ttype = f.get("type", "").strip('"')
        path = f.get("path", "")
        seen[(ttype, path)] += 1
        tid = ("track", ttype, path, seen[(ttype, path)])
        out[tid + ("(exists)",)] = "yes"
        for field, raw in f.items():
            if field in ("type", "path"):
                continue
            if field == "keys":
                try:
                    ks = keys_parts(parse_value(raw), refs, ttype)
                except ValueError:
                    ks = None
                if ks is not None:
                    out.update({tid + k: v for k, v in ks.items()})
                    continue
            try:
                out[tid + (field,)] = canon(parse_value(raw), refs)
            except ValueError:
                out[tid + (field,)] = raw
    return out


class Seq(tuple):
    """A sequence part (an animation's frames): merged as a sequence, as git merges lines."""


def frames_parts(raw, refs):
    t = parse_value(raw)
    if t[0] != "arr":
        return None
    out = {}
    for a in t[1]:
        if a[0] != "dict":
            return None
        d = {canon(k, refs).strip('"'): v for k, v in a[1]}
        name = canon(d.get("name", ("atom", "?")), refs)
        out[("animation", name, "(exists)")] = "yes"
        for k, v in d.items():
            if k == "frames" and v[0] == "arr":
                out[("animation", name, "frames")] = Seq(canon(x, refs) for x in v[1])
            elif k != "name":
                out[("animation", name, k)] = canon(v, refs)
    return out


def parts_of(key, owner_type, props, refs, whole=False):
    """{part: value} of property `key` (of a node or resource of `owner_type` whose
    properties are `props`), None when the value has no parts the measure knows; with
    `whole`, such a value is one part (a value the diff shortened, read in full)."""
    got = parts_in(key, owner_type, props, refs)
    if got is None and whole:
        raw = props.get(key)
        if raw is None:
            return {}
        try:
            return {("value",): canon(parse_value(raw), refs)}
        except (ValueError, IndexError):
            return {("value",): raw}
    return got


def parts_in(key, owner_type, props, refs):
    """parts_of without the whole-value fallback."""
    try:
        if key == "tracks":
            return tracks_parts(props, refs)
        raw = props.get(key)
        if raw is None:
            return {}
        if key == "tile_map_data" or re.fullmatch(r"(layer_\d+/)?tile_data", key):
            cells = cells_of(key, raw)
            return None if cells is None else {("cell", c): repr(v) for c, v in cells.items()}
        if key == "animations" and owner_type == "SpriteFrames":
            return frames_parts(raw, refs)
        return dict_parts(raw, refs)
    except (ValueError, struct.error, IndexError, TypeError):
        return None


def seq_merge(b, o, t):
    """Three-way merge of sequences (diff3 by matching runs), as git merges lines: edits
    of overlapping stretches of base conflict (None); insertions at one place on both
    sides keep ours' then theirs' (the library's rule and issue 30's)."""
    import difflib

    def edits(x, side):
        sm = difflib.SequenceMatcher(a=b, b=x, autojunk=False)
        return [(i1, i2, tuple(x[j1:j2]), side) for tag, i1, i2, j1, j2 in sm.get_opcodes()
                if tag != "equal"]

    def clash(e, f):
        (a1, a2), (b1, b2) = e[:2], f[:2]
        if a1 == a2 and b1 == b2:
            return False
        if a1 == a2:
            return b1 < a1 < b2
        if b1 == b2:
            return a1 < b1 < a2
        return a1 < b2 and b1 < a2

    eo, et = edits(o, 0), edits(t, 1)
    et = [e for e in et if e[:3] not in {x[:3] for x in eo}]
    if any(clash(e, f) for e in eo for f in et):
        return None
    out, i = [], 0
    for a1, a2, repl, _ in sorted(eo + et, key=lambda e: (e[0], e[0] != e[1], e[3])):
        out.extend(b[i:a1])
        out.extend(repl)
        i = max(i, a2)
    out.extend(b[i:])
    return tuple(out)
