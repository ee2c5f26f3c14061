// Renders a gpubench report.html in headless Chromium (Debian's, through
// playwright-core) at each width given and checks what a reader would see:
// no element overflows the page (content inside a horizontally scrollable
// box is the box's, not the page's), every image loads, and the HTML parses
// without errors (parse5, the WHATWG parser, reporting every parse error).
// Writes screenshots per width beside the report: the first screen
// (screenshot-W.png) and the whole page (screenshot-W-full.png).
//
// usage: node check-report.mjs REPORT.html WIDTH...
// Prints one line per check and "N passed, N failed"; exit 1 if any failed.
import { readFileSync } from "node:fs";
import { dirname, basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { parse } from "parse5";

const [file, ...widths] = process.argv.slice(2);
if (!file || widths.length === 0) {
  console.error("usage: node check-report.mjs REPORT.html WIDTH...");
  process.exit(2);
}
const path = resolve(file);
let passed = 0, failed = 0;
function check(name, problems) {
  if (problems.length === 0) {
    passed++;
    console.log(`ok    ${name}`);
  } else {
    failed++;
    console.log(`FAIL  ${name}`);
    for (const p of problems.slice(0, 20)) console.log(`        ${p}`);
    if (problems.length > 20) console.log(`        ... and ${problems.length - 20} more`);
  }
}

// well-formed: every parse error the HTML standard defines
const html = readFileSync(path, "utf8");
const errors = [];
parse(html, {
  sourceCodeLocationInfo: true,
  onParseError: (e) => errors.push(`line ${e.startLine} col ${e.startCol}: ${e.code}`),
});
check(`${basename(path)} parses without errors (parse5)`, errors);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  for (const w of widths.map(Number)) {
    const page = await browser.newPage({ viewport: { width: w, height: 900 } });
    const failedRequests = [];
    page.on("requestfailed", (r) => failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
    await page.goto(pathToFileURL(path).href, { waitUntil: "load", timeout: 60000 });
    const res = await page.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const scrolls = (el) => {
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          const ox = getComputedStyle(a).overflowX;
          if (ox === "auto" || ox === "scroll" || ox === "hidden") return true;
        }
        return false;
      };
      const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        (el.className && typeof el.className === "string" ? "." + el.className.split(/\s+/).join(".") : "");
      const overflows = (el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && (r.right > vw + 1 || r.left < -1) && !scrolls(el);
      };
      const over = [];
      for (const el of document.body.querySelectorAll("*")) {
        /* the outermost element that overflows, not each of its descendants */
        if (!overflows(el) || (el.parentElement && el.parentElement !== document.body && overflows(el.parentElement)))
          continue;
        const r = el.getBoundingClientRect();
        over.push(`${name(el)} spans ${Math.round(r.left)}..${Math.round(r.right)} px of ${vw}: ` +
                  JSON.stringify((el.textContent || "").trim().slice(0, 60)));
      }
      const page = document.documentElement.scrollWidth > vw + 1 ?
        [`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${vw}`] : [];
      const imgs = [...document.images].filter((i) => !i.complete || i.naturalWidth === 0)
        .map((i) => `image does not load: ${i.getAttribute("src")}`);
      return { over, page, imgs, nimg: document.images.length };
    });
    check(`${w} px: no element overflows the page`, [...res.page, ...res.over]);
    check(`${w} px: all ${res.nimg} images load`, [...res.imgs, ...failedRequests]);
    // the first screen as a reader opens it, and the whole page
    const shot = join(dirname(path), `screenshot-${w}.png`);
    const full = join(dirname(path), `screenshot-${w}-full.png`);
    await page.screenshot({ path: shot });
    await page.screenshot({ path: full, fullPage: true });
    console.log(`      screenshots ${shot}, ${basename(full)}`);
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
