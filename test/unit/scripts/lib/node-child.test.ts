/**
 * The shared "fresh node, read its result" step: real child processes (one each), the result
 * read from a marked line among log lines, and every way a child can fail turned into a
 * rejection with the failure message the callers have always given.
 */
import { describe, expect, it } from "vitest";
import { readMarkedLine, runNodeChild } from "../../../../scripts/lib/node-child";

const marked = { read: (out: string) => readMarkedLine(out, "RESULT"), quote: { stderr: 20, stdout: 30 } };

describe("runNodeChild", () => {
  it("reads the marked result line among log lines, with the child's env and cwd", async () => {
    const code = `console.log("a log line"); process.stdout.write("RESULT " + JSON.stringify({ v: process.env.V, cwd: process.cwd() }) + "\\nafter\\n");`;
    const run = await runNodeChild({ ...marked, args: ["-e", code], env: { V: "x" }, cwd: "/", label: "the child" });
    expect(run.value).toEqual({ v: "x", cwd: "/" });
    expect(run.wallMs).toBeGreaterThan(0);
  });

  it.each([
    ["a non-zero exit, even with a result", `process.stdout.write("RESULT 1\\n"); console.error("E".repeat(50)); process.exit(3);`, `the child failed (exit 3): ${"E".repeat(20)} RESULT 1\n`],
    ["no result line", `console.log("only logs"); console.error("why");`, "the child failed (exit 0): why\n only logs\n"],
    ["a result that does not parse", `console.log("RESULT {oops");`, "the child failed (exit 0):  RESULT {oops\n"],
  ])("rejects %s, quoting stderr and stdout as far as asked", async (_name, code, message) => {
    await expect(runNodeChild({ ...marked, args: ["-e", code], label: "the child" })).rejects.toThrow(message);
  });

  it("quotes no stdout unless asked and keeps a reader's error as the cause", async () => {
    const failure = runNodeChild({ args: ["-e", `console.log("not json"); console.error("err");`], label: "PDF bench process", read: (out) => JSON.parse(out) as unknown, quote: { stderr: 500 } });
    await expect(failure).rejects.toThrow(/^PDF bench process failed \(exit 0\): err\n$/);
    await expect(failure).rejects.toHaveProperty("cause", expect.any(SyntaxError));
  });
});
