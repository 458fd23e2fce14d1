import { mkdtempSync } from "node:fs";
import { chromium } from "playwright-core";

const ctx = await chromium.launchPersistentContext(mkdtempSync("/tmp/dbg-"), {
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu"],
});
const page = ctx.pages()[0]!;
page.on("console", (m) => console.log("console", m.type(), m.text()));
page.on("pageerror", (e) => console.log("pageerror", e.message));
await page.goto(process.argv[2]!);
await page.waitForTimeout(1500);
console.log(await page.content());
await ctx.close();
