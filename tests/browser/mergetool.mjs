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
//   launch:  open URL (the launch page's file:// address) and report where it led; Cancel
// Prints one JSON line with what the page showed.
import { report } from "./launch.mjs";
import { mkdirSync, rmSync } from "node:fs";

const [action, url, extra] = process.argv.slice(2);
const shot = extra;
const out = { action };

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
    if (shot) await page.screenshot({ path: shot, fullPage: true });
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
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
  } else if (action === "cancel") {
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await page.getByText("Cancelled").waitFor();
  } else if (action === "config") {
    out.outline = await page.locator("#outline-title").textContent();
    out.tree = await treeLabels(page);
    out.headings = await page.locator("section.conflict h3").allTextContents();
    out.keys = await page.locator("section.conflict table.changes").evaluateAll(ts => ts.map(t => [...t.querySelectorAll("tr td:first-child code")].map(c => c.textContent)));
    await conflict(1).getByRole("button", { name: /^Use ours\b/ }).click();
    await conflict(2).getByRole("button", { name: /^Use theirs\b/ }).click();
    await saved();
    out.status = await status.textContent();
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "animation") {
    out.tree = await treeLabels(page);
    const view = conflict(1).locator(".keys").first();
    out.lines = await view.locator("svg.timeline").evaluate(svg => [...svg.querySelectorAll("text.side")].map(t => t.textContent));
    out.dots = await view.locator("svg.timeline circle").evaluateAll(cs => cs.map(c => [c.getAttribute("data-time"), c.getAttribute("class"), c.getAttribute("cx")]));
    out.times = await view.locator("table.key-table tr td:first-child").allTextContents();
    out.table = await view.locator("table.key-table").evaluate(t => [...t.querySelectorAll("tr")].map(r => [...r.children].map(c => c.textContent)));
    if (shot) await page.screenshot({ path: shot, fullPage: true });
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
  } else {
    throw new Error(`unknown action ${action}`);
  }
});
