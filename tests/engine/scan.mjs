// Just enough reading of a Godot 4 text scene or resource to build its placeholders: the
// [ext_resource] tags (id, type, path) and the [node] tags (name, parent, type, instance).
// Property values are skipped (strings, brackets and parentheses balanced), so a "[" at
// the start of a line inside a multi-line string is not taken for a tag.

/** The tags of `text`: [{ name, fields: { key: raw value text } }]. */
export function tags(text) {
  const out = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    // At the start of a line.
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\r")) i++;
    if (text[i] === "[") {
      const end = skipValue(text, i);
      out.push(parseTag(text.slice(i + 1, end - 1)));
      i = end;
    } else {
      // A property line (or junk): skip its value, which may span lines.
      const from = i;
      let eq = -1;
      while (i < n && text[i] !== "\n") {
        if (text[i] === "=" && eq < 0) eq = i;
        if (eq >= 0 && (text[i] === '"' || text[i] === "[" || text[i] === "(" || text[i] === "{")) i = skipValue(text, i);
        else i++;
      }
      const last = out[out.length - 1];
      if (last && eq > from) {
        last.props.push([text.slice(from, eq).trim(), text.slice(eq + 1, i).trim()]);
      }
    }
    while (i < n && text[i] !== "\n") i++;
    i++;
  }
  return out;
}

// The index just past the string or bracketed value starting at `i`.
function skipValue(text, i) {
  const close = { "[": "]", "(": ")", "{": "}" };
  const stack = [];
  const n = text.length;
  for (; i < n; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < n && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (!stack.length) return i + 1;
    } else if (close[c]) {
      stack.push(close[c]);
    } else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (!stack.length) return i + 1;
    }
  }
  return n;
}

function parseTag(body) {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(body);
  const tag = { name: m ? m[1] : "", fields: {}, props: [] };
  let i = m ? m[0].length : 0;
  const n = body.length;
  while (i < n) {
    while (i < n && /\s/.test(body[i])) i++;
    const k = /^([A-Za-z_][A-Za-z0-9_/]*)\s*=\s*/.exec(body.slice(i));
    if (!k) break;
    i += k[0].length;
    const start = i;
    if (body[i] === '"' || body[i] === "[" || body[i] === "{") i = skipValue(body, i);
    else {
      while (i < n && !/[\s(]/.test(body[i])) i++;
      if (body[i] === "(") i = skipValue(body, i);
    }
    tag.fields[k[1]] = body.slice(start, i);
  }
  return tag;
}

/** A quoted Godot string's text (escapes undone), or the raw text when not quoted. */
export function unquote(v) {
  if (v === undefined) return undefined;
  if (!v.startsWith('"')) return v;
  return v.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e) => {
    if (e[0] === "u" && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" }[e] ?? e;
  });
}

/** The id inside ExtResource("1_ab") / ExtResource( 1 ), or null. */
export function extId(v) {
  const m = /^ExtResource\(\s*"?([^")\s]*)"?\s*\)$/.exec(v || "");
  return m ? m[1] : null;
}

/**
 * What a file needs from the rest of its project:
 *   ext: its ext_resources ({ type, path });
 *   inside: per instanced scene (its path), the node paths inside it that the file
 *     addresses (overrides of instanced nodes, parents of nodes added under them), each
 *     with the unique_id the file gives it, if any;
 *   members: what its connections need from scripts outside the file, a signal of the
 *     `from` node and a method of the `to` node, as ["script", path, kind, name] (a
 *     script it attaches) or ["scene", path, node, kind, name] (a node of an instanced
 *     scene, "." its root), kind "signal" or "method";
 *   uniforms: per external shader (its path), the shader parameters its materials set,
 *     as [name, GLSL type] in file order;
 *   nodePathProps: the names its nodes list in node_paths=;
 *   animations: the animation names its nodes set (`animation = &"run"`);
 *   nodes: its node paths ("." the root), in file order.
 */
export function needs(text) {
  const ext = new Map(); // id -> { type, path }
  const nodes = []; // { path, typed, instance, script }
  const connections = [];
  const uniforms = new Map(); // shader path -> [[name, type]]
  const nodePathProps = new Set();
  const animations = new Set();
  for (const t of tags(text)) {
    if (t.name === "ext_resource") {
      const id = unquote(t.fields.id);
      ext.set(id, { type: unquote(t.fields.type) || "Resource", path: unquote(t.fields.path) || "" });
    } else if (t.name === "node") {
      const name = unquote(t.fields.name) || "";
      const parent = unquote(t.fields.parent);
      const path = parent === undefined ? "." : parent === "." ? name : `${parent}/${name}`;
      const inst = extId(t.fields.instance);
      const scriptProp = t.props.find(([k]) => k === "script");
      const script = scriptProp ? extId(scriptProp[1]) : null;
      nodes.push({
        path,
        uid: t.fields.unique_id,
        typed: t.fields.type !== undefined,
        instance: inst !== null ? ext.get(inst)?.path ?? null : null,
        script: script !== null ? ext.get(script)?.path ?? null : null,
      });
      const np = /PackedStringArray\((.*)\)/.exec(t.fields.node_paths || "");
      if (np) for (const m of np[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)) nodePathProps.add(unquote(`"${m[1]}"`));
      for (const [k, v] of t.props) {
        if (k === "animation") {
          const a = /^&?("(?:[^"\\]|\\.)*")$/.exec(v);
          if (a) animations.add(unquote(a[1]));
        }
      }
    } else if (t.name === "connection") {
      connections.push({
        signal: unquote(t.fields.signal),
        from: unquote(t.fields.from),
        to: unquote(t.fields.to),
        method: unquote(t.fields.method),
      });
    } else if (t.name === "sub_resource" || t.name === "resource") {
      const shader = t.props.find(([k]) => k === "shader");
      const id = shader ? extId(shader[1]) : null;
      const path = id !== null ? ext.get(id)?.path : undefined;
      if (path) {
        if (!uniforms.has(path)) uniforms.set(path, []);
        const list = uniforms.get(path);
        for (const [k, v] of t.props) {
          const name = k.startsWith("shader_parameter/") ? k.slice(17) : null;
          const type = name && glslType(v);
          if (type && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !list.some(([n]) => n === name)) list.push([name, type]);
        }
      }
    }
  }
  const declared = new Map(nodes.map((n) => [n.path, n]));
  const inside = new Map(); // scene path -> Map node path relative to its root -> unique_id
  // The nearest declared ancestor of `p` (itself included when `self`) that instances a
  // scene, and p's path below it.
  const owner = (p, self) => {
    const parts = p === "." ? [] : p.split("/");
    for (let k = parts.length - (self ? 0 : 1); k >= 0; k--) {
      const a = k === 0 ? "." : parts.slice(0, k).join("/");
      const d = declared.get(a);
      if (d && d.instance) return { scene: d.instance, rel: parts.slice(k).join("/") || "." };
    }
    return null;
  };
  const want = (p, uid) => {
    const o = owner(p, false);
    if (!o) return;
    if (!inside.has(o.scene)) inside.set(o.scene, new Map());
    const m = inside.get(o.scene);
    if (!m.has(o.rel) || uid !== undefined) m.set(o.rel, uid);
  };
  for (const n of nodes) {
    if (n.path !== "." && !n.typed && !n.instance) want(n.path, n.uid);
    if (n.path !== ".") {
      const parent = n.path.includes("/") ? n.path.slice(0, n.path.lastIndexOf("/")) : ".";
      if (!declared.has(parent)) want(parent);
    }
  }
  // Where a connection's end gets its members: the script the file attaches, else the
  // instanced scene's node (none for a native node: its members are the engine's).
  const holder = (p) => {
    const at = p === "." || p === "" ? "." : p.replace(/^\.\//, "");
    const d = declared.get(at);
    if (d && d.script) return ["script", d.script];
    if (d && d.typed) return null;
    const o = owner(at, true);
    return o ? ["scene", o.scene, o.rel] : null;
  };
  const members = [];
  for (const c of connections) {
    if (c.from !== undefined && c.signal) {
      const h = holder(c.from);
      if (h) members.push([...h, "signal", c.signal]);
    }
    if (c.to !== undefined && c.method) {
      const h = holder(c.to);
      if (h) members.push([...h, "method", c.method]);
    }
  }
  return {
    ext: [...ext.values()],
    inside,
    members,
    uniforms,
    nodePathProps: [...nodePathProps],
    animations: [...animations],
    nodes: nodes.map((n) => n.path),
  };
}

// The GLSL type of a uniform a material gives the value `v` (as the file spells it), or
// null when the value says too little; "color" is a vec4 with the source_color hint (a
// plain vec4 takes a Color as a Vector4 and loses it).
function glslType(v) {
  if (v === "true" || v === "false") return "bool";
  if (/^-?\d+$/.test(v)) return "int";
  if (/^-?(\d+\.\d*|\.\d+|\d+)(e[-+]?\d+)?$/i.test(v) || /^-?inf$|^nan$/.test(v)) return "float";
  const m = /^([A-Za-z0-9]+)\(/.exec(v);
  if (!m) return null;
  return {
    Color: "color", Vector2: "vec2", Vector3: "vec3", Vector4: "vec4",
    Vector2i: "ivec2", Vector3i: "ivec3", Vector4i: "ivec4",
    Basis: "mat3", Projection: "mat4", Transform3D: "mat4",
    ExtResource: "sampler2D", SubResource: "sampler2D",
  }[m[1]] ?? null;
}
