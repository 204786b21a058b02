// @ts-check
/**
 * Worker-thread entry of the local server's conversion (worker-converter.ts): loads
 * conversion-job.ts. The local server runs from source, and this thread never inherits the
 * parent's `--import tsx` (worker-converter.ts starts it without the parent's execArgv,
 * worker-exec-argv.ts), so tsx's loader is registered for this thread first, under `npm start` as
 * under vitest. Never used in Lambda, which converts in process (converter.ts).
 */
import { URL } from "node:url";

const job = new URL("./conversion-job.ts", import.meta.url).href;

try {
  await import(job);
} catch (error) {
  // No TypeScript loader in this thread: Node 20 refuses the .ts file (ERR_UNKNOWN_FILE_EXTENSION);
  // Node 22's built-in type stripping loads it but not its extensionless imports
  // (ERR_MODULE_NOT_FOUND). A module really missing fails the same way again below, under tsx.
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  if (code !== "ERR_UNKNOWN_FILE_EXTENSION" && code !== "ERR_MODULE_NOT_FOUND") throw error;
  const { register } = await import("tsx/esm/api");
  register();
  // A new URL: Node keeps the failed load of the first one in its module map.
  await import(`${job}?tsx`);
}
