// Headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM) in a fresh profile,
// offline-minded: no first-run, no background networking, no component updates.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "tscn-merge-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1200, height: 800 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(60000); // a busy CI machine
  const close = async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); };
  return { page, close };
}

// Run `body(page)` in a fresh browser, then print `out` (with `ok`, and `error` when the
// body threw) as one JSON line and exit 0 or 1: the shape every page script reports in.
export async function report(out, body) {
  const { page, close } = await launch();
  try {
    await body(page);
    out.ok = true;
  } catch (e) {
    out.ok = false;
    out.error = String(e && e.message || e);
  } finally {
    await close();
  }
  console.log(JSON.stringify(out));
  process.exit(out.ok ? 0 : 1);
}
