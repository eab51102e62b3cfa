// Drive the mergetool page: node mergetool.mjs ACTION URL [SCREENSHOT | FOLDER]
//   resolve: conflict 1 "Use ours", conflict 2 "Use theirs", Save
//   keys:    the same with the keyboard only (o, t, Ctrl+S)
//   broken:  conflict 1 "Use ours", a broken value typed for conflict 2; report the status, Cancel
//   cancel:  Cancel
//   config:  a project.godot: report the outline and key tables; ours, then theirs; Save
//   animation: an animation key conflict: report the time lines, the key table and the
//            tree's marks; "Use theirs" on every conflict; Save
//   names:   report headings, column heads and tree marks before and after choosing
//            ours everywhere; Cancel, and report how the status looks
//   failsave: "Use ours for all"; remove FOLDER (the file's folder) so the write fails;
//            Save (report what the page says); put FOLDER back; Save again
//   pictures: report the Pictures panel: its pictures' labels, where NODE (the last
//            argument) stands in each, its outlines; close and reopen it; Cancel
//   follow:  report where NODE (the last argument) stands in each picture, its outlines and
//            the captions; use theirs in conflict 1, then ours in conflict 2, reporting
//            the same after the picture of the choices is redrawn each time, and whether
//            that picture's pixels changed; Save
//   launch:  open URL (the launch page's file:// address) and report where it led; Cancel
// Prints one JSON line with what the page showed.
import { report } from "./launch.mjs";
import { mkdirSync, rmSync } from "node:fs";

const [action, url, extra] = process.argv.slice(2);
const shot = extra;
const out = { action };

// A whole-page screenshot from the top: scrolled, the sticky toolbar would be drawn
// over the middle of it.
const snap = async page => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: shot, fullPage: true });
};
const treeLabels = page => page.evaluate(() => [...document.querySelectorAll("#tree li")].map(li => li.textContent.trim()));
const chooseAll = async (page, conflict, side) => {
  const n = await page.locator("section.conflict").count();
  for (let i = 1; i <= n; i++) await conflict(i).getByRole("button", { name: new RegExp(`^Use ${side}\\b`) }).click();
};

await report(out, async page => {
  await page.goto(url);
  const conflict = n => page.getByRole("region", { name: new RegExp(`^Conflict ${n}:`) });
  await conflict(1).waitFor();
  const status = page.getByRole("status");
  const save = page.getByRole("button", { name: "Save", exact: true });
  const saved = () => page.waitForFunction(() => !document.querySelector("#save").disabled);
  if (action === "resolve") {
    await conflict(1).getByRole("button", { name: /^Use ours\b/ }).click();
    await conflict(2).getByRole("button", { name: /^Use theirs\b/ }).click();
    await saved();
    out.status = await status.textContent();
    if (shot) await snap(page);
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "keys") {
    await page.keyboard.press("o");
    await page.keyboard.press("t");
    await saved();
    await page.keyboard.press("Control+s");
    await page.getByText("Saved.").waitFor();
  } else if (action === "broken") {
    await conflict(1).getByRole("button", { name: /^Use ours\b/ }).click();
    await conflict(2).getByRole("textbox", { name: /Value/ }).fill("rotation = Vector2(1,\n");
    // Not just "would be broken": before the typed value is checked, the status says
    // conflict 2 is still open, which begins the same way.
    await status.filter({ hasText: "does not parse" }).waitFor();
    out.status = await status.textContent();
    out.save_disabled = await save.isDisabled();
    out.marked = await conflict(2).evaluate(e => e.classList.contains("bad"));
    if (shot) await snap(page);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
  } else if (action === "cancel") {
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
  } else if (action === "config") {
    out.outline = await page.locator("#outline-title").textContent();
    out.pictures = await page.locator("details#pictures").isVisible();
    out.tree = await treeLabels(page);
    out.headings = await page.locator("section.conflict h3").allTextContents();
    out.keys = await page.locator("section.conflict table.changes").evaluateAll(ts => ts.map(t => [...t.querySelectorAll("tr td:first-child code")].map(c => c.textContent)));
    await conflict(1).getByRole("button", { name: /^Use ours\b/ }).click();
    await conflict(2).getByRole("button", { name: /^Use theirs\b/ }).click();
    await saved();
    out.status = await status.textContent();
    if (shot) await snap(page);
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "animation") {
    out.tree = await treeLabels(page);
    const view = conflict(1).locator(".keys").first();
    out.lines = await view.locator("svg.timeline").evaluate(svg => [...svg.querySelectorAll("text.side")].map(t => t.textContent));
    out.dots = await view.locator("svg.timeline circle").evaluateAll(cs => cs.map(c => [c.getAttribute("data-time"), c.getAttribute("class"), c.getAttribute("cx")]));
    out.times = await view.locator("table.key-table tr td:first-child").allTextContents();
    out.table = await view.locator("table.key-table").evaluate(t => [...t.querySelectorAll("tr")].map(r => [...r.children].map(c => c.textContent)));
    if (shot) await snap(page);
    await chooseAll(page, conflict, "theirs");
    await saved();
    out.tree_after = await treeLabels(page);
    out.status = await status.textContent();
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "names") {
    out.headings = await page.locator("section.conflict h3").allTextContents();
    out.columns = await conflict(1).locator("table.changes th").allTextContents();
    out.buttons = await conflict(1).locator(".choices button").allTextContents();
    out.tree = await treeLabels(page);
    await chooseAll(page, conflict, "ours");
    await saved();
    out.tree_after = await treeLabels(page);
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
    out.cancel_class = await status.getAttribute("class");
    out.cancel_colour = await status.evaluate(s => getComputedStyle(s).backgroundColor);
  } else if (action === "failsave") {
    await page.getByRole("button", { name: /^Use ours for all/ }).click();
    await saved();
    rmSync(extra, { recursive: true, force: true });
    await save.click();
    await status.filter({ hasText: "Not saved" }).waitFor();
    out.status = await status.textContent();
    out.save_disabled = await save.isDisabled();
    out.pressed = await page.locator("section.conflict button[aria-pressed=true]").count();
    mkdirSync(extra, { recursive: true });
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "pictures") {
    const panel = page.locator("details#pictures");
    await panel.waitFor();
    out.summary = await panel.locator("summary").textContent();
    out.open = await panel.evaluate(d => d.open);
    out.captions = await panel.locator("figure figcaption").allTextContents();
    // Where the node's drawing stands inside each picture, as a fraction of its size.
    out.pictures = await panel.locator("figure > svg").evaluateAll((svgs, name) => svgs.map(svg => {
      const box = svg.getBoundingClientRect();
      const g = svg.querySelector(`g[data-node="${name}"]:not(.mark)`);
      const r = g && g.getBoundingClientRect();
      return { label: svg.getAttribute("aria-label"), w: box.width,
        at: r ? [(r.x + r.width / 2 - box.x) / box.width, (r.y + r.height / 2 - box.y) / box.height] : null,
        marks: [...svg.querySelectorAll("[data-mark]")].map(m => m.getAttribute("data-node")) };
    }), process.argv[5]);
    if (shot) await snap(page);
    await panel.locator("summary").click();
    out.shown_closed = await panel.locator("figure > svg").first().isVisible();
    await panel.locator("summary").click();
    out.shown_reopened = await panel.locator("figure > svg").first().isVisible();
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
  } else if (action === "follow") {
    const panel = page.locator("details#pictures");
    await panel.waitFor();
    const where = () => panel.evaluate((d, name) => [...d.querySelectorAll("figure")].map(f => {
      const svg = f.querySelector("svg"), box = svg && svg.getBoundingClientRect();
      const g = svg && svg.querySelector(`g[data-node="${name}"]:not(.mark)`), r = g && g.getBoundingClientRect();
      return { caption: f.querySelector("figcaption").textContent, label: svg && svg.getAttribute("aria-label"),
        at: r ? [(r.x + r.width / 2 - box.x) / box.width, (r.y + r.height / 2 - box.y) / box.height] : null,
        marks: svg ? [...new Set([...svg.querySelectorAll("[data-mark]")].map(m => m.getAttribute("data-node")))].sort() : null };
    }), process.argv[5]);
    const pixels = () => panel.locator("figure.choices svg").screenshot();
    const caption = panel.locator("figure.choices figcaption");
    out.before = await where();
    const first = await pixels();
    await conflict(1).getByRole("button", { name: /^Use theirs\b/ }).click();
    await caption.filter({ hasText: "1 open" }).waitFor();
    out.one = await where();
    out.pixels_changed = !first.equals(await pixels());
    await conflict(2).getByRole("button", { name: /^Use ours\b/ }).click();
    await caption.filter({ hasText: /^Your choices$/ }).waitFor();
    out.both = await where();
    if (shot) await snap(page);
    await saved();
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else {
    throw new Error(`unknown action ${action}`);
  }
});
