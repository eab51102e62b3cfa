// Drive the mergetool page: node mergetool.mjs ACTION URL [SCREENSHOT]
//   resolve: conflict 1 "Use ours", conflict 2 "Use theirs", Save
//   keys:    the same with the keyboard only (o, t, Ctrl+S)
//   broken:  conflict 1 "Use ours", a broken value typed for conflict 2; report the status, Cancel
//   cancel:  Cancel
// Prints one JSON line with what the page showed.
import { report } from "./launch.mjs";

const [action, url, shot] = process.argv.slice(2);
const out = { action };
await report(out, async page => {
  await page.goto(url);
  const conflict = n => page.getByRole("region", { name: new RegExp(`^Conflict ${n}:`) });
  await conflict(1).waitFor();
  const status = page.getByRole("status");
  const save = page.getByRole("button", { name: "Save", exact: true });
  if (action === "resolve") {
    await conflict(1).getByRole("button", { name: "Use ours", exact: true }).click();
    await conflict(2).getByRole("button", { name: "Use theirs", exact: true }).click();
    await page.waitForFunction(() => !document.querySelector("#save").disabled);
    out.status = await status.textContent();
    if (shot) await page.screenshot({ path: shot, fullPage: true });
    await save.click();
    await page.getByText("Saved.").waitFor();
  } else if (action === "keys") {
    await page.keyboard.press("o");
    await page.keyboard.press("t");
    await page.waitForFunction(() => !document.querySelector("#save").disabled);
    await page.keyboard.press("Control+s");
    await page.getByText("Saved.").waitFor();
  } else if (action === "broken") {
    await conflict(1).getByRole("button", { name: "Use ours", exact: true }).click();
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
  } else {
    throw new Error(`unknown action ${action}`);
  }
});
