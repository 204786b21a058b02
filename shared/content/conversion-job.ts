/**
 * The worker thread of worker-converter.ts: converts one document at a time with
 * {@link renderDocument} and posts back the result or the error. Loaded through
 * conversion-thread.mjs (which gives it a TypeScript loader when the process has none).
 */
import { parentPort } from "node:worker_threads";
import { isWebgateError } from "../errors";
import type { ConversionJob, ConversionReply } from "./conversion-messages";
import { renderDocument } from "./render";

function run(job: ConversionJob): ConversionReply {
  const cancel = new Int32Array(job.cancel);
  // The deadline lives on the main thread's clock; this thread only sees whether it passed.
  const deadline = { expired: () => Atomics.load(cancel, 0) !== 0 };
  try {
    return { id: job.id, ok: true, document: renderDocument({ ...job.input, deadline }) };
  } catch (error) {
    if (isWebgateError(error)) {
      return { id: job.id, ok: false, error: { code: error.code, message: error.message, details: error.details, retryable: error.retryable } };
    }
    return { id: job.id, ok: false, bug: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}

parentPort?.on("message", (job: ConversionJob) => parentPort?.postMessage(run(job)));
// The conversion code is loaded: the main thread's warm() waits for this.
parentPort?.postMessage({ ready: true } satisfies ConversionReply);
