/**
 * `npm start`: serves the API on http://127.0.0.1:$PORT (default 8787) with an in-process
 * DynamoDB emulator. No AWS account needed. See docs/api.md for the environment variables.
 *
 * A program, not a script: it says where it listens and how to stop it, names what failed when
 * it cannot start, and stops on SIGINT, SIGTERM and SIGHUP, and when the process that started it
 * goes away (`kill -TERM <npm pid>` must not leave the server running and the port answering).
 */
// The SDK warns on every start that its future releases will need Node.js 22; Lambda runs 22,
// and the warning says nothing a developer can act on locally. Set before the SDK loads.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
/** How often the parent process is checked, and how long a stop may take before exiting anyway. */
const PARENT_CHECK_MS = 500;
const STOP_GRACE_MS = 5_000;

async function main(): Promise<void> {
  const { startLocalApi } = await import("./lib/local-api");
  const { localBanner } = await import("./lib/local-banner");
  const api = await startLocalApi({ env: process.env, warmConverter: true });
  process.stdout.write(localBanner({ url: api.url, dynamoEndpoint: api.dynamoEndpoint, env: process.env, pid: process.pid, chromium: api.chromium }));

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`webgate stopping (${why})\n`);
    setTimeout(() => process.exit(1), STOP_GRACE_MS).unref();
    void api.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  for (const signal of STOP_SIGNALS) process.once(signal, () => stop(signal));
  // npm may exit without passing its signal on (or be killed outright): this process is then
  // re-parented, and the server must not outlive the command that started it.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop("the process that started it exited");
  }, PARENT_CHECK_MS).unref();
}

main().catch((error: unknown) => {
  // Configuration and start-up errors name what failed; anything else is printed as it is.
  const named = error instanceof Error && (error.name === "ConfigError" || error.name === "StartupError");
  process.stderr.write(`webgate could not start: ${named ? error.message : String(error)}\n`);
  process.exit(1);
});
