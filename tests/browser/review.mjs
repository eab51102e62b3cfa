// Render an HTML review page: node review.mjs FILE.html [SCREENSHOT]
// Prints one JSON line: the cells drawn (by kind), the animation keys drawn, the title.
import { report } from "./launch.mjs";
import { pathToFileURL } from "node:url";

const [file, shot] = process.argv.slice(2);
const out = {};
await report(out, async page => {
  await page.goto(pathToFileURL(file).href);
  out.title = await page.title();
  out.cells = await page.evaluate(() => {
    const n = {};
    for (const r of document.querySelectorAll("svg.cells rect")) n[r.getAttribute("class")] = (n[r.getAttribute("class")] || 0) + 1;
    return n;
  });
  out.picture_box = await page.locator("svg.cells").first().boundingBox();
  out.keys = await page.locator("svg.timeline circle").count();
  out.scripts = await page.locator("script").count();
  if (shot) await page.screenshot({ path: shot, fullPage: true });
});
