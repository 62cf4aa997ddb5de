// Opens a Chrome trace in speedscope's built app, served on 127.0.0.1, in headless Chromium
// (Debian's, through playwright-core), and prints the names of the profiles (tracks) speedscope
// lists in its profile menu, as JSON on stdout ({count, rows, errors}: the toolbar's profile
// count, the menu's rows, the page's errors); with a third argument, a screenshot of the app
// showing the trace with that menu open is written there. Everything stays on this machine: the server
// listens on the loopback only and the browser runs without background networking.
//
// Usage: node speedscope.mjs TRACE.json CHROMIUM [SCREENSHOT.png]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize } from "node:path";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const [trace, executablePath, screenshot] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const app = join(dirname(require.resolve("speedscope/package.json")), "dist", "release");
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".png": "image/png", ".woff2": "font/woff2", ".ico": "image/x-icon" };

const server = createServer(async (request, response) => {
  const path = decodeURIComponent(new URL(request.url, "http://localhost").pathname);
  const file = path === "/trace.json" ? trace : join(app, normalize(path === "/" ? "/index.html" : path));
  try {
    const body = await readFile(file);
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404);
    response.end();
  }
});
await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let status = 0;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 400 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/trace.json`)}`);
  // Once loaded, the toolbar names the profile shown and how many there are ("1/6").
  await page.waitForFunction(() => /\d+\/\d+/.test(document.body.innerText), null, { timeout: 60000 });
  // The profile menu lists every profile: open it from the toolbar's name and read its rows.
  const count = Number((await page.evaluate(() => document.body.innerText)).match(/\d+\/(\d+)/)[1]);
  await page.getByText(/\d+\/\d+/).first().click();
  await page.waitForSelector("tr td", { timeout: 10000 });
  if (screenshot) {
    await page.screenshot({ path: screenshot });
  }
  const rows = await page.$$eval("tr", (trs) => trs.map((tr) => tr.innerText.trim()).filter((t) => t.length > 0));
  process.stdout.write(JSON.stringify({ count, rows, errors }) + "\n");
} catch (e) {
  process.stderr.write(`speedscope.mjs: ${e}\n`);
  status = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(status);
