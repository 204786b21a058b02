// @ts-check
/**
 * Worker-thread entry of the local server's conversion (worker-converter.ts): loads
 * conversion-job.ts. The local server runs from source: under `npm start` (`node --import tsx`)
 * the worker inherits the TypeScript loader; under vitest it has none, and tsx's loader is
 * registered for this thread first. Never used in Lambda, which converts in process (converter.ts).
 */
import { URL } from "node:url";

const job = new URL("./conversion-job.ts", import.meta.url).href;

try {
  await import(job);
} catch (error) {
  if (!(error instanceof Error && "code" in error && error.code === "ERR_UNKNOWN_FILE_EXTENSION")) throw error;
  const { register } = await import("tsx/esm/api");
  register();
  // A new URL: Node keeps the failed load of the first one in its module map.
  await import(`${job}?tsx`);
}
