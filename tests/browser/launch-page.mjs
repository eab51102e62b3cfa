// Open the mergetool as the browser would from its launch page:
//   node launch-page.mjs FILE_URL
// Follows the page (a file only the user can read) to the mergetool, reports where it
// led and the page's title, and cancels. Prints one JSON line.
import { report } from "./launch.mjs";

const [address] = process.argv.slice(2);
const out = {};
await report(out, async page => {
  await page.goto(address);
  await page.getByRole("region", { name: /^Conflict 1:/ }).waitFor();
  out.url = page.url();
  out.title = await page.title();
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await page.getByText("Cancelled").waitFor();
});
