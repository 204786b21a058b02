/**
 * One fresh `node` process (this process's binary) whose result is read from its stdout: the
 * step the bench sections (bench-bundle.ts, bench-pdf.ts) and the bundle tests
 * (test/infra/render-bundle.test.ts, mcp-bundle.test.ts) share. Each caller says how to read its
 * own result; a child that exits non-zero, prints no result, or prints one that does not parse is
 * a rejection whose message quotes the start of its stderr (and, when asked, its stdout), never
 * an exception thrown from a stream callback.
 *
 * No timeout of its own: the callers are a benchmark that waits for every run and tests under
 * vitest's per-test timeout.
 */
import { spawn } from "node:child_process";

export interface NodeChildOptions<T> {
  /** The arguments after the node binary: a script path, or `--input-type=module -e <code>`. */
  args: readonly string[];
  /** The child's whole environment; default this process's. */
  env?: NodeJS.ProcessEnv;
  /** The child's working directory; default this process's. */
  cwd?: string;
  /** What the child is, for the failure message: `<label> failed (exit <status>): <stderr> [<stdout>]`. */
  label: string;
  /** Reads the result from the child's whole stdout: `undefined` when it is not there. May throw (then the run fails). */
  read: (stdout: string) => T | undefined;
  /** How many characters of stderr (and of stdout, when set) a failure message quotes. */
  quote: { stderr: number; stdout?: number };
}

export interface NodeChildResult<T> {
  value: T;
  /** Wall time from the spawn to the child's exit, in ms. */
  wallMs: number;
}

/** Runs the child to its exit and resolves with what `read` made of its stdout; rejects as described above. */
export function runNodeChild<T>(options: NodeChildOptions<T>): Promise<NodeChildResult<T>> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...options.args], { env: options.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (status) => {
      const wallMs = performance.now() - t0;
      const failure = (cause?: unknown) => {
        const quoted = `${err.slice(0, options.quote.stderr)}${options.quote.stdout === undefined ? "" : ` ${out.slice(0, options.quote.stdout)}`}`;
        return new Error(`${options.label} failed (exit ${status}): ${quoted}`, cause === undefined ? undefined : { cause });
      };
      if (status !== 0) return reject(failure());
      let value: T | undefined;
      try {
        value = options.read(out);
      } catch (error) {
        return reject(failure(error));
      }
      if (value === undefined) reject(failure());
      else resolve({ value, wallMs });
    });
  });
}

/**
 * The JSON after `<marker> ` on the first stdout line that starts with it, or `undefined` if no
 * line does (a child whose own code logs to stdout too marks its result line this way).
 */
export function readMarkedLine(stdout: string, marker: string): unknown {
  const prefix = `${marker} `;
  const line = stdout.split("\n").find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : (JSON.parse(line.slice(prefix.length)) as unknown);
}
