/**
 * The Node options our worker threads (the PDF reader's, pdf.ts; the local server's conversion
 * workers, worker-converter.ts) start with. Node's default is the parent thread's whole
 * `execArgv`, and what a parent was started with is often wrong for these workers:
 * - `--input-type=module -e …` (a parent run from a string): Node refuses to start a worker from
 *   a file with it (ERR_INPUT_TYPE_NOT_ALLOWED), so the first PDF failed with `decode_failed`;
 * - `--cpu-prof`, `--heap-prof`, `--inspect`: every worker writes a profile of its own or opens
 *   another inspector session;
 * - `--import tsx` (`npm start`): the PDF worker is plain JavaScript, and pdf.js's 3 MB through
 *   tsx cost seconds per cold worker; the conversion worker registers tsx itself when it needs
 *   it (conversion-thread.mjs), as it already does under vitest;
 * - `--max-old-space-size` and the like: the workers' heaps are set by `resourceLimits` instead.
 * Kept: `--enable-source-maps`, so that a worker's stack traces read like the parent's. (In
 * Lambda the flag comes from NODE_OPTIONS, which a worker reads from its environment whatever
 * its `execArgv`.)
 */
const KEPT = new Set(["--enable-source-maps"]);

/** The options of `parentExecArgv` that a worker keeps (only {@link KEPT}); a new array, in order. */
export function workerExecArgv(parentExecArgv: readonly string[]): string[] {
  return parentExecArgv.filter((arg) => KEPT.has(arg));
}
