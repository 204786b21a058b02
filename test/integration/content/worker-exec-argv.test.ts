/**
 * Our worker threads do not take the parent's Node options (shared/content/worker-exec-argv.ts):
 * a parent started with flags that break a worker (`--input-type=module -e`, Node refuses it for
 * a worker started from a file) or alter it (`--cpu-prof`: every thread writes a profile;
 * `--import tsx`) still reads a PDF in the PDF reader's worker and converts a page in the local
 * server's conversion worker, and only the main thread writes a profile. Real parent processes
 * (this Node, so CI's Node 22 run covers Node 22), real workers from source.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../infra/webgate-stack";
import { readMarkedLine, runNodeChild } from "../../../scripts/lib/node-child";
import { workerExecArgv } from "../../../shared/content/worker-exec-argv";
import { CPU_WORK_TIMEOUT_MS } from "../../helpers/cpu-work";

const dir = path.join(REPO_ROOT, "cdk.out", "test-worker-exec-argv");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const href = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, file)).href);

/** One PDF through pdf.ts's worker, one page through the conversion worker; prints what each read. */
const CODE = `import { PDFDocument, StandardFonts } from "pdf-lib";
const { readPdf } = await import(${href("shared/content/pdf.ts")});
const { createWorkerConverter } = await import(${href("shared/content/worker-converter.ts")});
if (process.env.LOAD_ONLY) {
  process.stdout.write("\\nRESULT {}\\n");
  process.exit(0);
}
const doc = await PDFDocument.create();
doc.addPage([612, 792]).drawText("Worker flags are the reader's own", { x: 72, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
const pdf = await readPdf(await doc.save(), { maxPages: 5, timeoutMs: 60000, format: "text" });
const converter = createWorkerConverter({ maxWorkers: 1 });
if (!process.env.NO_WARM) await converter.warm(); // as the local server does
const page = await converter.convert({ body: new TextEncoder().encode("<h1>Converted in a worker</h1><p>Plain words.</p>"), contentType: "text/html; charset=utf-8", finalUrl: "https://example.com/", mainContent: false });
await converter.close();
process.stdout.write("\\nRESULT " + JSON.stringify({ pdf: pdf.content, page: page.content }) + "\\n");`;

/** Runs {@link CODE} in a parent started with `flags`; `loadOnly`: imports the modules, starts no worker. */
function runParent(flags: string[], asScript: boolean, loadOnly = false, noWarm = false): Promise<unknown> {
  const script = path.join(dir, "parent.mjs");
  if (asScript) writeFileSync(script, CODE);
  return runNodeChild({
    // --import tsx as `npm start` has it: the parent loads the TypeScript sources.
    args: ["--import", "tsx", ...flags, ...(asScript ? [script] : ["--input-type=module", "-e", CODE])],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir, ...(loadOnly ? { LOAD_ONLY: "1" } : {}), ...(noWarm ? { NO_WARM: "1" } : {}) },
    label: "the parent process",
    read: (out) => readMarkedLine(out, "RESULT"),
    quote: { stderr: 1_500, stdout: 500 },
  }).then((run) => run.value);
}

const readBoth = { pdf: expect.stringContaining("Worker flags are the reader's own"), page: expect.stringMatching(/^# Converted in a worker\n+Plain words\./) };

describe("worker threads started by a parent with Node flags of its own", () => {
  it("read and convert from a parent run with --input-type=module -e", async () => {
    expect(await runParent([], false)).toEqual(readBoth);
  }, CPU_WORK_TIMEOUT_MS);

  it("convert without warm(): the loading worker keeps the process alive until the page is converted", async () => {
    // Was exit 13 (an unsettled top-level await): the worker started for the waiting conversion was
    // unreferenced while it loaded, and nothing else kept the event loop alive.
    expect(await runParent([], true, false, true)).toEqual(readBoth);
  }, CPU_WORK_TIMEOUT_MS);

  it("read and convert under --cpu-prof, and write no profiles of their own", async () => {
    const profiles = (name: string) => {
      const folder = path.join(dir, name);
      return { flags: ["--cpu-prof", `--cpu-prof-dir=${folder}`], count: () => readdirSync(folder).filter((f) => f.endsWith(".cpuprofile")).length };
    };
    // The threads that profile without any worker of ours: the main one and tsx's loader-hooks thread.
    const baseline = profiles("baseline");
    expect(await runParent(baseline.flags, true, true)).toEqual({});
    const withWorkers = profiles("with-workers");
    expect(await runParent(withWorkers.flags, true)).toEqual(readBoth);
    expect(baseline.count()).toBeGreaterThan(0);
    expect(withWorkers.count()).toBe(baseline.count());
  }, CPU_WORK_TIMEOUT_MS);
});

describe("workerExecArgv", () => {
  it.each([
    [[], []],
    [["--enable-source-maps"], ["--enable-source-maps"]],
    [["--import", "tsx", "--enable-source-maps", "--input-type=module"], ["--enable-source-maps"]],
    [["--cpu-prof", "--cpu-prof-dir=/tmp/p", "--inspect=127.0.0.1:0", "--max-old-space-size=100", "--heap-prof"], []],
  ])("keeps only source maps of %j", (parent, kept) => {
    expect(workerExecArgv(parent)).toEqual(kept);
  });
});
