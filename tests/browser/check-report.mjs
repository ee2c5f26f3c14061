// Renders a gpubench report.html in headless Chromium (Debian's, through
// playwright-core) at each width given and checks what a reader would see:
// no element overflows the page (content inside a horizontally scrollable
// box is the box's, not the page's), every image loads, and the HTML parses
// without errors (parse5, the WHATWG parser, reporting every parse error);
// the summary comes first (on the first screen, before the contents and
// every section), every link of the contents leads to an element of the
// page, no two text boxes of a plot intersect (their rendered boxes,
// getBoundingClientRect), the sizes of report.html and report.md beside it
// are within the limits given, and printed on A4 and Letter (print media,
// the page's text width) no table or figure is cut.
// Writes screenshots per width beside the report: the first screen
// (screenshot-W.png) and the whole page (screenshot-W-full.png), and the
// report printed to A4 (print-a4.pdf).
//
// With --max-series N, also that no plot draws more than N series (gnuplot's
// plot groups, gnuplot_plot_K, that draw a line or a point).
//
// usage: node check-report.mjs REPORT.html [--max-html BYTES] [--max-md BYTES] [--max-series N] WIDTH...
// Prints one line per check and "N passed, N failed"; exit 1 if any failed.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { parse } from "parse5";

const args = process.argv.slice(2);
const limits = {};
for (let i = 1; i < args.length; ) {
  if (args[i] === "--max-html" || args[i] === "--max-md" || args[i] === "--max-series") {
    limits[args[i].slice(6)] = Number(args[i + 1]);
    args.splice(i, 2);
  } else i++;
}
const [file, ...widths] = args;
if (!file || widths.length === 0 || widths.some((w) => !(Number(w) > 0))) {
  console.error("usage: node check-report.mjs REPORT.html [--max-html BYTES] [--max-md BYTES] [--max-series N] WIDTH...");
  process.exit(2);
}
const path = resolve(file);
const LIST_MAX = Number(process.env.CHECK_REPORT_LIST || 20); /* problems printed per check */
let passed = 0, failed = 0;
function check(name, problems) {
  if (problems.length === 0) {
    passed++;
    console.log(`ok    ${name}`);
  } else {
    failed++;
    console.log(`FAIL  ${name}`);
    for (const p of problems.slice(0, LIST_MAX)) console.log(`        ${p}`);
    if (problems.length > LIST_MAX) console.log(`        ... and ${problems.length - LIST_MAX} more`);
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

// sizes: the HTML (plots inlined) and its Markdown twin
for (const [kind, name] of [["html", "report.html"], ["md", "report.md"]]) {
  if (!(kind in limits)) continue;
  const f = join(dirname(path), name);
  const size = existsSync(f) ? statSync(f).size : NaN;
  check(`${name} is ${size} bytes, at most ${limits[kind]}`,
        size <= limits[kind] ? [] : [`${f}: ${size} bytes, over ${limits[kind]}`]);
}

// The summary first: on the first screen, before the contents, and both
// before every other section; every in-page link leads somewhere.
async function checkStructure(page, screen) {
  const r = await page.evaluate((screen) => {
    const sum = document.querySelector("section.summary");
    const toc = document.querySelector("nav.toc");
    const probs = [];
    if (!sum) probs.push("no summary (section.summary)");
    if (!toc) probs.push("no table of contents (nav.toc)");
    if (sum && sum.getBoundingClientRect().top > screen)
      probs.push(`the summary starts at ${Math.round(sum.getBoundingClientRect().top)} px, below the first screen`);
    const before = (a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING;
    const sections = [...document.querySelectorAll("h2")].filter((h) => !(sum && sum.contains(h)) &&
      !(toc && h.nextElementSibling === toc));
    for (const el of [sum, toc].filter(Boolean))
      for (const h of sections)
        if (!before(el, h)) probs.push(`${el.tagName.toLowerCase()} comes after the section "${h.textContent}"`);
    if (sum && toc && !before(sum, toc)) probs.push("the contents come before the summary");
    const links = [...document.querySelectorAll('a[href^="#"]')];
    const bad = links.filter((a) => !document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1))))
      .map((a) => `link ${a.getAttribute("href")} ("${a.textContent}") leads nowhere`);
    const inToc = toc ? toc.querySelectorAll("a").length : 0;
    if (toc && inToc === 0) probs.push("the contents list no link");
    return { probs: [...probs, ...bad], nlinks: links.length, inToc, nsec: sections.length };
  }, screen);
  check(`the summary first, then the contents (${r.inToc} links), then ${r.nsec} sections`,
        r.probs.filter((p) => !p.startsWith("link ")));
  check(`all ${r.nlinks} links within the page lead to an element`, r.probs.filter((p) => p.startsWith("link ")));
}

// Each plot draws at most limits.series series: its gnuplot_plot_K groups
// (ids prefixed per figure) with a line or a visible point.
async function checkSeries(page) {
  if (!("series" in limits)) return;
  const r = await page.evaluate((max) => {
    const probs = [];
    let most = 0;
    const svgs = [...document.querySelectorAll("svg")];
    for (const svg of svgs) {
      const drawn = new Set();
      for (const g of svg.querySelectorAll('g[id*="gnuplot_plot_"]')) {
        const k = g.id.replace(/^.*gnuplot_plot_/, "");
        const marks = [...g.querySelectorAll("path, use")]
          .filter((m) => !/scale\(0\)/.test(m.getAttribute("transform") || ""));
        if (marks.length) drawn.add(k);
      }
      most = Math.max(most, drawn.size);
      if (drawn.size > max) probs.push(`a plot draws ${drawn.size} series: ${svg.querySelector("title")?.textContent ?? "?"}`);
    }
    return { probs, most, n: svgs.length };
  }, limits.series);
  check(`each of ${r.n} plots draws at most ${limits.series} series (the most: ${r.most})`, r.probs);
}

// No two text boxes of one plot intersect (by more than a pixel). A box is
// the text's own box (getBBox) carried to the page by its transform
// (getScreenCTM), so slanted tick names are the parallelograms they are,
// not their axis-aligned hulls; two boxes meet unless some axis of either
// separates them (the separating axis test).
async function checkLabels(page) {
  const r = await page.evaluate(() => {
    const corners = (t) => {
      const b = t.getBBox(), m = t.getScreenCTM();
      return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
        .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    };
    const depth = (p, q) => { /* the least overlap of p and q over the axes of both (< 0: apart) */
      let least = Infinity;
      for (const poly of [p, q])
        for (let i = 0; i < 4; i++) {
          const [x0, y0] = poly[i], [x1, y1] = poly[(i + 1) % 4];
          let ax = y0 - y1, ay = x1 - x0;
          const len = Math.hypot(ax, ay);
          if (len === 0) continue;
          ax /= len;
          ay /= len;
          const proj = (pts) => pts.map(([x, y]) => x * ax + y * ay);
          const a = proj(p), b = proj(q);
          least = Math.min(least, Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)));
        }
      return least;
    };
    const probs = [];
    const figs = [...document.querySelectorAll("figure svg")];
    let ntext = 0;
    for (const svg of figs) {
      const name = svg.closest("figure").id || "a figure";
      const boxes = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim() !== "")
        .filter((t) => { const b = t.getBBox(); return b.width > 0 && b.height > 0; })
        .map((t) => ({ t: t.textContent.trim(), c: corners(t) }));
      ntext += boxes.length;
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const d = depth(boxes[i].c, boxes[j].c);
          if (d > 1)
            probs.push(`${name}: "${boxes[i].t.slice(0, 40)}" and "${boxes[j].t.slice(0, 40)}" overlap ` +
                       `(${d.toFixed(1)} px)`);
        }
    }
    return { probs, nfig: figs.length, ntext };
  });
  check(`no two of ${r.ntext} text boxes on ${r.nfig} plots intersect`, r.probs);
}

// Printed (print media) at the text width of A4 and of Letter with the
// stylesheet's margins: nothing sticks out of the page, so no table is cut.
async function checkPrint(browser) {
  const pages = [["A4", 210, 24], ["Letter", 215.9, 24]]; /* width, left + right margin (mm) */
  for (const [paper, mm, margin] of pages) {
    const w = Math.floor(((mm - margin) / 25.4) * 96);
    const page = await browser.newPage({ viewport: { width: w, height: 1100 } });
    await page.emulateMedia({ media: "print" });
    await page.goto(pathToFileURL(path).href, { waitUntil: "load", timeout: 60000 });
    const over = await page.evaluate(() => {
      const vw = document.documentElement.clientWidth;
      const out = [];
      for (const el of document.querySelectorAll("table, figure, pre, section, nav, details")) {
        const b = el.getBoundingClientRect();
        if (b.width > 0 && b.right > vw + 1)
          out.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} ends at ${Math.round(b.right)} px ` +
                   `of ${vw}: ${JSON.stringify((el.textContent || "").trim().slice(0, 50))}`);
      }
      for (const d of document.querySelectorAll("details")) {
        const hidden = [...d.children].filter((c) => c.tagName !== "SUMMARY" && c.getClientRects().length === 0);
        if (hidden.length) out.push(`details "${d.querySelector("summary")?.textContent}": content hidden in print`);
      }
      return out;
    });
    check(`printed on ${paper} (${w} px of text width): no table or figure cut`, over);
    if (paper === "A4") await page.pdf({ path: join(dirname(path), "print-a4.pdf"), format: "A4" });
    await page.close();
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  for (const w of widths.map(Number)) {
    const h = 900;
    const page = await browser.newPage({ viewport: { width: w, height: h } });
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
    if (w === Number(widths[0])) {
      await checkStructure(page, h);
      await checkLabels(page);
      await checkSeries(page);
    }
    // the first screen as a reader opens it, and the whole page
    const shot = join(dirname(path), `screenshot-${w}.png`);
    const full = join(dirname(path), `screenshot-${w}-full.png`);
    await page.screenshot({ path: shot });
    await page.screenshot({ path: full, fullPage: true });
    console.log(`      screenshots ${shot}, ${basename(full)}`);
    await page.close();
  }
  await checkPrint(browser);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
