// Classifies the difference between a file and the engine's re-save of it.
//
// What a runtime (export template) build writes differently from the editor, from the
// engine's source (docs/engine.md cites the places):
//   - no uid="..." on the header or on [ext_resource] lines: ResourceSaver asks a callback
//     for a path's uid, and only the editor's EditorFileSystem installs one
//     (ResourceSaver::set_get_resource_id_for_path); without it the saver writes none;
//   - [ext_resource] ids renumbered "1", "2", ... in the order the saver first meets each
//     resource: the loader remembers a file's ext_resource ids for the next save only
//     under TOOLS_ENABLED (Resource::set_id_for_path), and the saver keeps them only there;
//     the runtime branch numbers them from 1.
// And what this harness does not have: the project's scripts. A placeholder script has no
// class_name, so a resource whose script declares one loses `script_class=` in its header.
//
// Everything else is the engine's own spelling of the file: Godot 4.6 writes no
// load_steps, and lines end in "\n" (kinds load_steps, crlf: "resave"). Differences
// past those are "other", with kinds that say which: ext_unused (an ext_resource nothing
// uses, which the saver drops), blank_lines (only empty lines differ), sub_order (the
// same sub_resources in another order: the saver writes each before its first user),
// text (anything else; `diff` shows the first place).
import { tags, unquote } from "./scan.mjs";

export const RUNTIME = new Set(["uid", "ext_ids", "ext_order", "script_class"]);
export const RESAVE = new Set(["load_steps", "crlf"]);

const HEADER = /^\[(gd_scene|gd_resource)\b/;

function headerFields(line) {
  const t = tags(line + "\n")[0];
  return t ? t.fields : {};
}

function dropField(line, key) {
  // Header and ext_resource lines hold no field values with brackets inside a string
  // that could contain ` key=`; the scan above found where the field is.
  const f = headerFields(line);
  if (f[key] === undefined) return line;
  return line.replace(` ${key}=${f[key]}`, "");
}

// Lines with the runtime's differences taken out; `map` renames ExtResource ids.
function normalize(lines, kinds, side, map) {
  const out = [];
  let extBlock = null;
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i];
    if (i === 0 || HEADER.test(l)) {
      if (HEADER.test(l)) {
        for (const k of ["uid", "script_class", "load_steps"]) {
          const f = headerFields(l)[k];
          if (f !== undefined) {
            kinds.add(`${side}:${k}`);
            l = dropField(l, k);
          }
        }
      }
    }
    if (l.startsWith("[ext_resource ")) {
      const f = headerFields(l);
      if (f.uid !== undefined) kinds.add(`${side}:uid`);
      const canon = `[ext_resource type=${f.type} path=${f.path} id=${map ? (map.get(unquote(f.id)) ?? `?${unquote(f.id)}`) : unquote(f.id)}]`;
      if (!extBlock) {
        extBlock = [];
        out.push(extBlock);
      }
      extBlock.push(canon);
      continue;
    }
    if (map && l.includes("ExtResource(")) {
      l = l.replace(/ExtResource\(\s*"([^"]*)"\s*\)/g, (_, id) => `ExtResource("${map.get(id) ?? `?${id}`}")`);
    }
    out.push(l);
  }
  return out;
}

function extTable(text) {
  const byId = new Map();
  const order = [];
  for (const t of tags(text)) {
    if (t.name !== "ext_resource") continue;
    const id = unquote(t.fields.id);
    const key = `${unquote(t.fields.type)}\u0000${unquote(t.fields.path)}`;
    byId.set(id, key);
    order.push(key);
  }
  return { byId, order };
}

/**
 * { kind: "identical" | "runtime" | "resave" | "other", kinds: [...], diff: [lines] }.
 * `original` and `saved` are strings (the saved text is the engine's).
 */
export function classify(original, saved) {
  if (original === saved) return { kind: "identical", kinds: [], diff: [] };
  const kinds = new Set();
  if (original.includes("\r\n")) kinds.add("crlf");
  const a = original.replace(/\r\n/g, "\n").split("\n");
  const b = saved.split("\n");
  // Original ext ids -> the saved file's ids, through (type, path).
  const ea = extTable(original);
  const eb = extTable(saved);
  const savedId = new Map([...eb.byId].map(([id, key]) => [key, id]));
  const map = new Map();
  let renumbered = false;
  for (const [id, key] of ea.byId) {
    const to = savedId.get(key);
    if (to !== undefined) map.set(id, to);
    if (to !== id) renumbered = true;
  }
  if (renumbered) kinds.add("ext_ids");
  const sameSet = ea.order.length === eb.order.length && ea.order.every((k) => eb.order.includes(k));
  if (sameSet && ea.order.some((k, i) => eb.order[i] !== k)) kinds.add("ext_order");
  const raw = new Set();
  const na = normalize(a, raw, "a", map);
  const nb = normalize(b, raw, "b", null);
  for (const k of ["uid", "script_class", "load_steps"]) {
    if (raw.has(`a:${k}`) && !raw.has(`b:${k}`)) kinds.add(k);
    else if (raw.has(`b:${k}`) && !raw.has(`a:${k}`)) kinds.add(`${k}_added`);
  }
  const flat = (xs) => xs.flatMap((x) => (Array.isArray(x) ? [...x].sort() : [x]));
  let fa = flat(na);
  const fb = flat(nb);
  const same = (x, y) => x.length === y.length && x.every((l, i) => l === y[i]);
  const diff = [];
  // An ext_resource nothing uses: the saver writes only those it meets.
  if (fa.some((l) => l.startsWith("[ext_resource ") && l.includes(" id=?"))) {
    kinds.add("ext_unused");
    fa = fa.filter((l) => !(l.startsWith("[ext_resource ") && l.includes(" id=?")));
  }
  if (!same(fa, fb)) {
    const full = (xs) => xs.filter((l) => l !== "");
    const sections = (xs) => {
      const out = [];
      for (const l of full(xs)) {
        if (l.startsWith("[") || !out.length) out.push([]);
        out[out.length - 1].push(l);
      }
      return out.map((x) => x.join("\n"));
    };
    const subs = (xs) => xs.filter((x) => x.startsWith("[sub_resource ")).sort();
    const rest = (xs) => xs.filter((x) => !x.startsWith("[sub_resource "));
    const [sa, sb] = [sections(fa), sections(fb)];
    if (same(full(fa), full(fb))) {
      // Only empty lines differ (a resolution that dropped a hunk leaves two together).
      kinds.add("blank_lines");
    } else if (same(subs(sa), subs(sb)) && same(rest(sa), rest(sb))) {
      // The same sub_resources in another order: the saver writes each before its first
      // user, depth first from the main resource.
      kinds.add("sub_order");
    } else {
      kinds.add("text");
      diff.push(...firstDifference(fa, fb));
    }
  }
  const ks = [...kinds].sort();
  let kind = "other";
  if (ks.every((k) => RUNTIME.has(k))) kind = "runtime";
  else if (ks.every((k) => RUNTIME.has(k) || RESAVE.has(k))) kind = "resave";
  return { kind, kinds: ks, diff };
}

// A few lines around the first place the two differ, in unified-diff spirit.
function firstDifference(a, b) {
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let ea = a.length - 1;
  let eb = b.length - 1;
  while (ea >= s && eb >= s && a[ea] === b[eb]) {
    ea--;
    eb--;
  }
  const out = [`@@ line ${s + 1}`];
  for (let i = Math.max(0, s - 2); i < s; i++) out.push(`  ${a[i]}`);
  for (let i = s; i <= Math.min(ea, s + 5); i++) out.push(`- ${a[i]}`);
  if (ea > s + 5) out.push(`- ... (${ea - s - 5} more)`);
  for (let i = s; i <= Math.min(eb, s + 5); i++) out.push(`+ ${b[i]}`);
  if (eb > s + 5) out.push(`+ ... (${eb - s - 5} more)`);
  return out.map((l) => (l.length > 300 ? l.slice(0, 300) + "..." : l));
}
