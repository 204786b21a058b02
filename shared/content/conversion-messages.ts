/**
 * The messages between worker-converter.ts (main thread) and conversion-job.ts (the worker
 * thread that runs renderDocument).
 */
import type { ErrorCode, ErrorDetails } from "../errors";
import type { ConversionInput } from "./converter";
import type { RenderedDocument } from "./render";

export interface ConversionJob {
  id: number;
  input: ConversionInput;
  /**
   * One Int32 that the main thread sets to 1 when the request's deadline passes; the worker's
   * conversion reads it at its checkpoints. The deadline stays on the main thread's clock alone.
   */
  cancel: SharedArrayBuffer;
}

export type ConversionReply =
  /** Posted once, when the worker has loaded the conversion code. */
  | { ready: true }
  | { id: number; ok: true; document: RenderedDocument }
  | { id: number; ok: false; error: { code: ErrorCode; message: string; details: ErrorDetails; retryable: boolean } }
  /** A throw that is not a WebgateError (a bug): the main thread rethrows it as a plain Error (500 internal). */
  | { id: number; ok: false; bug: string };
