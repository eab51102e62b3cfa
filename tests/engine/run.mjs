// The engine harness's driver: one batch of files, one engine start (docs/engine.md).
//
//   node tests/engine/run.mjs --list LIST --out RESULTS.jsonl [--tsv RESULTS.tsv]
//                             [--quiet-seconds N]
//
// LIST has one file a line: `ID<TAB>KIND<TAB>PATH`, KIND `res` (a .tscn/.tres the engine
// loads, instantiates when a scene, and re-saves) or `cfg` (a ConfigFile-format file it
// reads with ConfigFile.load). The files go into one main pack with the placeholders their
// ext_resources need (scan.mjs) and the checker (check.gd); the pack is served on
// 127.0.0.1 with the cross-origin isolation headers; headless Chromium (SwiftShader for
// WebGL) starts the official Godot 4.6 web template on it once. Every line the engine
// prints goes to the file being checked. A file the engine dies or stalls on (no output
// for --quiet-seconds, default 60) is recorded as such, and the engine starts again on
// the rest.
//
// RESULTS.jsonl: one JSON object per file, in LIST order. RESULTS.tsv (for tests/engine.rs,
// which reads it without a JSON parser): records of tab-separated fields, tabs, newlines
// and backslashes escaped as \t \n \\:
//   F id kind loaded(0|1) class instantiated(0|1|-) resave(identical|runtime|resave|other|-) kinds errors
//   N id path        one per node of the SceneState, in file order
//   M id path        a SceneState path the instantiated tree lacks
//   E id message     an ERROR the engine printed while on this file
//   W id message     a WARNING
//   D id line        the re-save's first difference (resave = other)
// Exit 0 when every file got an answer (whatever it was), 1 when the harness failed.
import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { buildPack } from "./pack.mjs";
import { HERE, missingTemplate, serve } from "./serve.mjs";
import { needs } from "./scan.mjs";
import { classify } from "./fidelity.mjs";

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
  "--no-first-run", "--disable-background-networking", "--disable-component-update",
  "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

function args() {
  const a = process.argv.slice(2);
  const o = { quiet: 60 };
  for (let i = 0; i < a.length; i++) {
    if (a[i] === "--list") o.list = a[++i];
    else if (a[i] === "--out") o.out = a[++i];
    else if (a[i] === "--tsv") o.tsv = a[++i];
    else if (a[i] === "--quiet-seconds") o.quiet = Number(a[++i]);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  if (!o.list || !o.out) throw new Error("usage: run.mjs --list LIST --out RESULTS.jsonl [--tsv RESULTS.tsv]");
  return o;
}

const PROJECT = `config_version=5

[application]

config/name="tscn-merge engine check"
run/main_scene="res://__check/main.tscn"
config/features=PackedStringArray("4.6")

[debug]

gdscript/warnings/enable=false
`;

const MAIN = `[gd_scene format=3]

[ext_resource type="Script" path="res://__check/check.gd" id="1"]

[node name="Main" type="Node"]
script = ExtResource("1")
`;

const quote = (s) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

// A scene whose root has the given descendants (`paths`: node path relative to it ->
// unique_id or undefined), plain Nodes under a Node2D root (a tile set's scene collection
// wants a CanvasItem); `scripts` maps a node path ("." the root) to the placeholder
// script (a user:// path) that gives it the members the files' connections need.
function skeleton(paths, scripts) {
  const all = new Set();
  for (const p of [...paths.keys(), ...scripts.keys()]) {
    const parts = p.split("/").filter((x) => x && x !== ".");
    for (let k = 1; k <= parts.length; k++) all.add(parts.slice(0, k).join("/"));
  }
  const sorted = [...all].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : a > b ? 1 : 0));
  const ext = [];
  const body = (p) => {
    const s = scripts.get(p);
    if (!s) return "";
    ext.push(`[ext_resource type="Script" path=${quote(s)} id="s${ext.length}"]\n`);
    return `script = ExtResource("s${ext.length - 1}")\n`;
  };
  let nodes = `[node name="Placeholder" type="Node2D"]\n${body(".")}`;
  for (const p of sorted) {
    const i = p.lastIndexOf("/");
    const name = i < 0 ? p : p.slice(i + 1);
    const parent = i < 0 ? "." : p.slice(0, i);
    const uid = paths.get(p) !== undefined ? ` unique_id=${paths.get(p)}` : "";
    nodes += `\n[node name=${quote(name)} type="Node" parent=${quote(parent)}${uid}]\n${body(p)}`;
  }
  return `[gd_scene format=3]\n\n${ext.join("")}${ext.length ? "\n" : ""}${nodes}`;
}

// A placeholder shader declaring the uniforms the files' materials set.
function shader(uniforms) {
  const decl = ([n, t]) => (t === "color" ? `uniform vec4 ${n} : source_color;\n` : `uniform ${t} ${n};\n`);
  return `shader_type canvas_item;\n${uniforms.map(decl).join("")}`;
}

// Where an ext_resource path lands in the pack (without res://), or null when it cannot.
function packPath(path, dir) {
  if (!path || path.startsWith("uid://")) return null;
  let p = path;
  if (p.startsWith("res://")) p = p.slice(6);
  else if (p.includes("://")) return null;
  else p = posix.join(dir, p);
  p = posix.normalize(p).replace(/^\/+/, "");
  if (p.startsWith("..") || p === "" || p.startsWith("__check/") || p.startsWith("__t/")) return null;
  return p;
}

const REMAP = (target) => `[remap]\n\npath=${quote(target)}\n`;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The pack for `files` ([{ id, kind, path, bytes }]): { pack, jobs }. Each file goes to
 * res://__t/N.tscn|tres (cfg: res://__c/N.cfg); each path its ext_resources name gets a
 * placeholder: a scene (a skeleton of the nodes files address inside it), a shader
 * (declaring the uniforms materials set), or a `<path>.remap` to a script
 * (user://__scripts/N.gd: placeholder.gd with the signals and methods connections need)
 * or to user://__ph/<Type>.tres, both of which check.gd makes at start.
 */
export function makePack(files) {
  const entries = new Map(); // pack path -> data
  const put = (p, data) => { if (!entries.has(p)) entries.set(p, data); };
  const scenes = new Map(); // scene pack path -> Map node path inside -> unique_id
  const sceneMembers = new Map(); // scene pack path -> Map node path -> member spec
  const scriptMembers = new Map(); // script pack path -> member spec
  const uniforms = new Map(); // shader pack path -> [[name, type]]
  const member = () => ({ signals: new Set(), methods: new Set() });
  const types = new Set();
  const nodePathProps = new Set();
  const animations = new Set();
  const jobs = [];
  const placeholders = [];
  const add = (map, key) => { if (!map.has(key)) map.set(key, new Set()); return map.get(key); };
  files.forEach((f, n) => {
    if (f.kind === "cfg") {
      const p = `__c/${n}.cfg`;
      put(p, f.bytes);
      jobs.push({ p: `res://${p}`, k: "cfg" });
      return;
    }
    const ext = f.path.endsWith(".tres") ? "tres" : "tscn";
    const p = `__t/${n}.${ext}`;
    put(p, f.bytes);
    jobs.push({ p: `res://${p}`, k: "res" });
    const need = needs(f.bytes.toString("utf8"));
    for (const e of need.ext) placeholders.push(e);
    for (const [scene, rel] of need.inside) {
      const sp = packPath(scene, "__t");
      if (!sp) continue;
      if (!scenes.has(sp)) scenes.set(sp, new Map());
      const m = scenes.get(sp);
      for (const [r, uid] of rel) if (!m.has(r) || (uid !== undefined && m.get(r) === undefined)) m.set(r, uid);
    }
    for (const m of need.members) {
      const [where, path] = m;
      const name = m[m.length - 1];
      if (!IDENT.test(name)) continue;
      const sp = packPath(path, "__t");
      if (!sp) continue;
      let spec;
      if (where === "script") {
        if (!scriptMembers.has(sp)) scriptMembers.set(sp, member());
        spec = scriptMembers.get(sp);
      } else {
        if (!sceneMembers.has(sp)) sceneMembers.set(sp, new Map());
        const nodes = sceneMembers.get(sp);
        if (!nodes.has(m[2])) nodes.set(m[2], member());
        spec = nodes.get(m[2]);
      }
      (m[m.length - 2] === "signal" ? spec.signals : spec.methods).add(name);
    }
    for (const [path, list] of need.uniforms) {
      const sp = packPath(path, "__t");
      if (!sp) continue;
      if (!uniforms.has(sp)) uniforms.set(sp, []);
      const have = uniforms.get(sp);
      for (const [n, t] of list) if (!have.some(([x]) => x === n)) have.push([n, t]);
    }
    need.nodePathProps.forEach((x) => nodePathProps.add(x));
    need.animations.forEach((x) => animations.add(x));
  });
  // Scripts: every one a .remap to user://__scripts/N.gd, which check.gd writes at start
  // (placeholder.gd with the members connections need, less those Object has).
  const scripts = [];
  const scriptFor = (spec) => {
    const out = `user://__scripts/${scripts.length}.gd`;
    scripts.push({ out, signals: [...spec.signals].sort(), methods: [...spec.methods].sort() });
    return out;
  };
  for (const e of placeholders) {
    const p = packPath(e.path, "__t");
    if (!p || entries.has(p) || entries.has(`${p}.remap`)) continue;
    if (e.type === "PackedScene" || /\.(tscn|scn)$/.test(p)) {
      if (!scenes.has(p)) scenes.set(p, new Map());
    } else if (/Script$/.test(e.type) || /\.(gd|cs)$/.test(p)) {
      put(`${p}.remap`, REMAP(scriptFor(scriptMembers.get(p) || member())));
    } else if (/\.gdshader$/.test(p)) {
      put(p, shader(uniforms.get(p) || []));
    } else {
      const t = IDENT.test(e.type) ? e.type : "Resource";
      types.add(t);
      put(`${p}.remap`, REMAP(`user://__ph/${t}.tres`));
    }
  }
  let moved = 0;
  for (const p of new Set([...scenes.keys(), ...sceneMembers.keys()])) {
    if (entries.has(p) || entries.has(`${p}.remap`)) continue;
    const nodeScripts = new Map([...(sceneMembers.get(p) || new Map())].map(([node, spec]) => [node, scriptFor(spec)]));
    const text = skeleton(scenes.get(p) || new Map(), nodeScripts);
    if (p.endsWith(".tscn")) put(p, text);
    else {
      const to = `__check/scenes/${moved++}.tscn`;
      put(to, text);
      put(`${p}.remap`, REMAP(`res://${to}`));
    }
  }
  put("project.godot", PROJECT);
  put(".godot/global_script_class_cache.cfg", "list=[]\n");
  put("__check/main.tscn", MAIN);
  put("__check/check.gd", readFileSync(join(HERE, "check.gd")));
  put("__check/placeholder.gd", readFileSync(join(HERE, "placeholder.gd")));
  put("__check/jobs.json", JSON.stringify({
    files: jobs,
    types: [...types].sort(),
    scripts,
    node_path_props: [...nodePathProps].sort(),
    animations: [...animations].sort(),
  }));
  const pack = buildPack([...entries].map(([path, data]) => ({ path, data })));
  return { pack, jobs };
}

// One engine start from file `start` on: calls onLine(kind, text) for each line, resolves
// to "done", "exit", "failed" or "quiet" (no line for `quiet` seconds).
async function start(url, startAt, quiet, onLine) {
  const profile = mkdtempSync(join(tmpdir(), "tscn-merge-engine-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 120000, // a busy CI machine
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    let finish;
    const finished = new Promise((r) => (finish = r));
    let timer;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish("quiet"), quiet * 1000);
    };
    await page.exposeFunction("__godotOut", (kind, text) => {
      arm();
      if (kind === "exit") finish("exit");
      else if (kind === "failed") { onLine("err", `ENGINE FAILED TO START: ${text}`); finish("failed"); }
      else if (kind === "out" || kind === "err") {
        for (const l of String(text).split("\n")) {
          onLine(kind, l);
          if (kind === "out" && l === "@@DONE") finish("done");
        }
      }
    });
    page.on("pageerror", (e) => onLine("err", `PAGE ERROR: ${e.message}`));
    page.on("crash", () => finish("exit"));
    arm();
    await page.goto(`${url}?start=${startAt}`, { timeout: 120000 });
    const how = await finished;
    clearTimeout(timer);
    return how;
  } finally {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

const esc = (s) => String(s).replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");

async function main() {
  const o = args();
  const why = missingTemplate();
  if (why) {
    console.error(`engine: ${why}`);
    process.exit(1);
  }
  const files = readFileSync(o.list, "utf8").split("\n").filter((l) => l).map((l) => {
    const [id, kind, path] = l.split("\t");
    return { id, kind, path, bytes: readFileSync(path) };
  });
  const t0 = Date.now();
  const { pack, jobs } = makePack(files);
  const results = files.map(() => null);
  const notes = files.map(() => ({ errors: [], warnings: [] }));
  let current = -1;
  let startAt = 0;
  let starts = 0;
  let placeholders = [];
  let between = 0;
  const server = await serve(pack);
  try {
    while (startAt < files.length) {
      starts++;
      current = -1;
      const how = await start(server.url, startAt, o.quiet, (kind, line) => {
        if (kind === "out") {
          if (line.startsWith("@@B ")) {
            current = Number(line.slice(4));
          } else if (line.startsWith("@@R ")) {
            // Godot's JSON.stringify leaves control characters other than \n, \t, ...
            // raw inside strings; JSON wants them escaped.
            const body = line.slice(4).replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
            try {
              const r = JSON.parse(body);
              results[r.i] = r;
            } catch (e) {
              if (current >= 0) results[current] = { i: current, loaded: false, harness: `unreadable answer: ${e.message}` };
            }
          } else if (line.startsWith("@@PH ")) {
            if (starts === 1) placeholders.push(line.slice(5));
          }
          return;
        }
        if (current < 0 || results[current]) {
          // Before the first file (start-up) or after the last (leak reports at exit).
          if (/^(ERROR|SCRIPT ERROR|ENGINE|PAGE)/.test(line) && between++ < 20) console.error(`engine (between files): ${line}`);
          return;
        }
        const n = notes[current];
        if (/^(USER )?WARNING:/.test(line)) { n.warnings.push(line); }
        else if (/^\s+at:/.test(line) || line.trim() === "") {
          // The source location of the line above: not kept.
        } else { n.errors.push(line); }
      });
      // Whatever happened, the files reported are done; the one in progress, if any,
      // is the engine's failure on it.
      let next = results.findIndex((r, i) => i >= startAt && !r);
      if (next < 0) break;
      if (how === "done") {
        console.error(`engine: finished without answering for file ${next}`);
        return 1;
      }
      if (current >= 0 && !results[current]) {
        results[current] = { i: current, loaded: false, harness: how === "quiet" ? "stalled" : "engine died" };
        console.error(`engine: ${how} on ${files[current].id}; starting again after it`);
        next = results.findIndex((r, i) => i >= startAt && !r);
        if (next < 0) break;
      } else if (current < 0) {
        console.error(`engine: ${how} before the first file (start ${startAt})`);
        for (const e of notes[0].errors.slice(0, 20)) console.error(e);
        return 1;
      }
      startAt = next;
    }
  } finally {
    await server.close();
  }
  // Classify re-saves, write the results.
  const jsonl = [];
  const tsv = [];
  const counts = { total: files.length, loaded: 0, identical: 0, runtime: 0, resave: 0, other: 0 };
  files.forEach((f, i) => {
    const r = results[i] || { loaded: false, harness: "no answer" };
    const rec = { id: f.id, kind: f.kind, source: f.path, ...r, ...notes[i] };
    delete rec.i;
    let resave = "-";
    if (f.kind === "res" && r.loaded && r.save_error === 0) {
      if (r.same) resave = "identical";
      else {
        const c = classify(f.bytes.toString("utf8"), r.saved || "");
        resave = c.kind;
        rec.resave_kinds = c.kinds;
        rec.resave_diff = c.diff;
      }
    }
    delete rec.saved;
    rec.resave = resave;
    if (r.loaded) counts.loaded++;
    if (resave in counts) counts[resave]++;
    jsonl.push(JSON.stringify(rec));
    const inst = r.instantiated === undefined ? "-" : r.instantiated ? "1" : "0";
    tsv.push(["F", f.id, f.kind, r.loaded ? 1 : 0, r.class || "-", inst, resave,
      (rec.resave_kinds || []).join(",") || "-", rec.errors.length].map(esc).join("\t"));
    for (const p of r.state || []) tsv.push(["N", f.id, p].map(esc).join("\t"));
    for (const p of r.missing || []) tsv.push(["M", f.id, p].map(esc).join("\t"));
    for (const e of rec.errors) tsv.push(["E", f.id, e].map(esc).join("\t"));
    for (const w of rec.warnings) tsv.push(["W", f.id, w].map(esc).join("\t"));
    if (r.harness) tsv.push(["E", f.id, `harness: ${r.harness}`].map(esc).join("\t"));
    for (const d of resave === "other" ? rec.resave_diff : []) tsv.push(["D", f.id, d].map(esc).join("\t"));
  });
  writeFileSync(o.out, jsonl.join("\n") + "\n");
  if (o.tsv) writeFileSync(o.tsv, tsv.join("\n") + "\n");
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.error(`engine: ${counts.loaded}/${counts.total} loaded; re-save identical ${counts.identical}, runtime-only ${counts.runtime}, 4.6 re-spelling ${counts.resave}, other ${counts.other}; ${starts} engine start(s), ${(pack.length / 1048576).toFixed(1)} MB pack, ${secs} s`);
  if (process.env.TSCN_ENGINE_PLACEHOLDERS) console.error(placeholders.join("\n"));
  return 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`engine: ${e && e.stack || e}`);
  process.exit(1);
});
