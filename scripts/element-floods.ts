/**
 * Element floods against ordinary article HTML, `main_content: false` (or true with --true):
 * ms of CPU per MB of each page through htmlToMarkdown (the decode is left out: ASCII pages), median of interleaved runs in one process.
 * Usage: npx tsx scripts/element-floods.ts [--true] [--text] [--runs N] [--mb N] [--only name]
 */
import { htmlToMarkdown } from "../shared/content/html-to-markdown";
import { ORDINARY_SHAPE } from "./lib/cost-shapes";
import { cpuClock } from "./lib/cpu-clock";

function flood(unit: (i: number) => string, bytes: number, head = "<html><body>", tail = "</body></html>"): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const u = unit(i);
    parts.push(u);
    size += u.length;
  }
  parts.push(tail);
  return parts.join("");
}

const FLOODS: Record<string, (bytes: number) => string> = {
  "ordinary article": (b) => ORDINARY_SHAPE.make(b),
  entities: (b) => flood(() => "&amp;&#x41;&lt; ", b),
  links: (b) => flood(() => '<a href="/x">x</a> ', b),
  code: (b) => flood(() => "<code>x</code> ", b),
  headings: (b) => flood(() => "<h3>x</h3>", b),
  "dt/dd": (b) => flood(() => "<dt>x</dt><dd>y</dd>", b, "<html><body><dl>", "</dl></body></html>"),
  "unclosed td": (b) => flood(() => "<td>x", b, "<html><body><table><tr>", "</tr></table></body></html>"),
  "unclosed li": (b) => flood(() => "<li>x", b, "<html><body><ul>", "</ul></body></html>"),
  "unclosed li in ol": (b) => flood(() => "<li>x", b, "<html><body><ol>", "</ol></body></html>"),
  "unclosed p": (b) => flood(() => "<p>x", b),
  "nested a": (b) => flood(() => "<a href='/'>", b),
  "short paragraphs": (b) => flood((i) => `<p>line ${i}</p>`, b),
  "small tables": (b) => flood(() => "<table><tr><td>a</td><td>b</td></tr></table>", b),
};

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, fallback: string) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1]! : fallback);
const runs = Number(value("--runs", "5"));
const bytes = Math.round(Number(value("--mb", "1")) * 1_000_000);
const only = value("--only", "");
const mainContent = flag("--true");
const format = flag("--text") ? "text" : "markdown";
const clock = cpuClock();
const names = Object.keys(FLOODS).filter((n) => only === "" || n === only || n === "ordinary article");
const pages = names.map((n) => FLOODS[n]!(bytes));
const samples = names.map(() => [] as number[]);
const convert = (html: string) => htmlToMarkdown(html, { baseUrl: "https://example.test/a", mainContent, format });
for (const body of pages) convert(body);
for (let r = 0; r < runs; r++) {
  for (let k = 0; k < names.length; k++) {
    const i = (k + r) % names.length;
    const t0 = clock.nowMs();
    convert(pages[i]!);
    samples[i]!.push(clock.nowMs() - t0);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(samples[0]!) / (pages[0]!.length / 1e6);
console.log(`main_content ${mainContent} format ${format}, ${bytes} bytes, median of ${runs}, ${clock.name}`);
for (let i = 0; i < names.length; i++) {
  const msPerMb = median(samples[i]!) / (pages[i]!.length / 1e6);
  console.log(`${names[i]!.padEnd(18)} ${msPerMb.toFixed(0).padStart(6)} ms/MB  ${(msPerMb / base).toFixed(1).padStart(5)}x`);
}
