// The scene pictures of an HTML diff or review: node pictures.mjs FILE.html PROBES [SCREENSHOT]
// PROBES is JSON: [{"picture": 0, "x": 100, "y": 50}, ...], scene coordinates in the
// picture-th <svg class="scene"> of the page. Prints one JSON line: the pictures, the
// colour of the screen pixel at each probe (from a screenshot), the outlines (node,
// mark, stroke colour) and what each picture draws with which texture.
import { report } from "./launch.mjs";
import { pathToFileURL } from "node:url";

const [file, probes, shot] = process.argv.slice(2);
const out = {};
await report(out, async page => {
  await page.goto(pathToFileURL(file).href);
  await page.waitForLoadState("load");
  out.pictures = await page.locator("svg.scene").count();
  out.labels = await page.$$eval("svg.scene", l => l.map(s => s.getAttribute("aria-label")));
  out.images = await page.locator("svg.scene-defs image").count();
  out.marks = await page.$$eval("svg.scene", l => l.flatMap((s, i) =>
    [...s.querySelectorAll("g.mark")].map(g => ({
      picture: i, node: g.dataset.node, mark: g.dataset.mark,
      stroke: getComputedStyle(g.querySelector("rect")).stroke,
    }))));
  out.uses = await page.$$eval("svg.scene", l => l.flatMap((s, i) =>
    [...s.querySelectorAll("g[data-node] use")].map(u => ({
      picture: i, node: u.closest("g[data-node]").dataset.node, href: u.getAttribute("href"),
    }))));
  // Each probe: its scene point on the screen (the picture scrolled into view), then
  // that pixel of a screenshot, decoded on a blank page.
  const decoder = await page.context().newPage();
  out.probes = [];
  for (const p of JSON.parse(probes)) {
    const here = await page.evaluate(p => {
      const svg = document.querySelectorAll("svg.scene")[p.picture];
      if (!svg) return null;
      svg.scrollIntoView({ block: "center" });
      const q = svg.createSVGPoint();
      q.x = p.x; q.y = p.y;
      const s = q.matrixTransform(svg.getScreenCTM());
      return { x: s.x, y: s.y };
    }, p);
    if (!here) { out.probes.push(null); continue; }
    const png = await page.screenshot({ clip: { x: Math.floor(here.x), y: Math.floor(here.y), width: 1, height: 1 } });
    out.probes.push(await decoder.evaluate(async b64 => {
      const img = new Image();
      img.src = "data:image/png;base64," + b64;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width; c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      return Array.from(g.getImageData(0, 0, 1, 1).data);
    }, png.toString("base64")));
  }
  out.scripts = await page.locator("script").count();
  if (shot) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: shot, fullPage: true });
  }
});
