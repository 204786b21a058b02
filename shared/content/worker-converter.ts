import os from "node:os";
import { Worker } from "node:worker_threads";
import type { Deadline } from "../deadline";
import { WebgateError } from "../errors";
import { conversionTimeLimit } from "./conversion-deadline";
import type { ConversionJob, ConversionReply } from "./conversion-messages";
import type { ConversionInput, DocumentConverter } from "./converter";
import type { RenderedDocument } from "./render";
import { workerExecArgv } from "./worker-exec-argv";

/** Heap limit of one conversion worker; a conversion that needs more ends in `content_too_complex`. */
export const CONVERSION_WORKER_HEAP_MB = 1_024;
/**
 * How long a worker may take to notice that its deadline passed (it looks at every checkpoint,
 * well under a millisecond apart) before it is terminated: the backstop for work between two
 * checkpoints that runs long.
 */
export const CANCEL_GRACE_MS = 250;

export interface WorkerConverterOptions {
  /** Conversions run at once; more wait their turn (within their deadline). Default: the CPUs available. */
  maxWorkers?: number;
  heapMb?: number;
  graceMs?: number;
}

export interface WorkerConverter extends DocumentConverter {
  /**
   * Starts workers up to `count` (default: maxWorkers) and resolves once each has loaded the
   * conversion code, so that no request pays for a cold worker (from source, through tsx, about
   * a second or two). Never rejects: a worker that fails to start is replaced on first use.
   */
  warm(count?: number): Promise<void>;
  /** Terminates every worker; conversions in progress reject. */
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  /** The worker has loaded the conversion code: only a loaded worker is given work. */
  loaded: boolean;
  /** Settles when the worker has loaded the conversion code, or has died. */
  ready: Promise<void>;
}

interface Waiter {
  start: (slot: Slot) => void;
  fail: (error: Error) => void;
}

/**
 * Converts in worker threads, so that the event loop of the local server keeps answering other
 * requests while a large page converts (a conversion is synchronous and would hold it for as long
 * as it runs). The deadline stays on the calling thread: when it passes, the worker is told
 * through a shared flag that its conversion checks at every checkpoint (conversion-deadline.ts)
 * and stops with `content_too_complex`; a worker that has not answered {@link CANCEL_GRACE_MS}
 * later is terminated, with the same error.
 *
 * Workers are reused and keep the process alive only while loading or busy (idle ones are
 * unref'ed). A conversion goes to a loaded, idle worker; when there is none it waits for the first
 * one to become free or to finish loading (a new one is started while fewer than `maxWorkers`
 * exist), so a request never waits for a cold worker while a warm one frees up sooner.
 */
export function createWorkerConverter(options: WorkerConverterOptions = {}): WorkerConverter {
  const maxWorkers = Math.max(1, options.maxWorkers ?? os.availableParallelism());
  const heapMb = options.heapMb ?? CONVERSION_WORKER_HEAP_MB;
  const graceMs = options.graceMs ?? CANCEL_GRACE_MS;
  const slots = new Set<Slot>();
  const queue: Waiter[] = [];
  let nextId = 1;
  let closed = false;

  const take = (slot: Slot): Slot => {
    slot.busy = true;
    slot.worker.ref();
    return slot;
  };

  /** Starts one more worker for waiting conversions while below the limit and none is loading. */
  const replenish = () => {
    if (closed || queue.length === 0 || slots.size >= maxWorkers) return;
    for (const slot of slots) if (!slot.loaded) return;
    spawn();
  };

  /** Gives `slot` to the next waiting conversion when it is loaded and free. */
  const dispatch = (slot: Slot) => {
    if (slots.has(slot) && slot.loaded && !slot.busy) queue.shift()?.start(take(slot));
    replenish();
  };

  const spawn = (): Slot => {
    // Not the parent's execArgv (worker-exec-argv.ts says why): without `npm start`'s
    // `--import tsx`, conversion-thread.mjs registers tsx in the thread itself.
    const worker = new Worker(new URL("./conversion-thread.mjs", import.meta.url), { execArgv: workerExecArgv(process.execArgv), resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    let markReady: () => void = () => undefined;
    const slot: Slot = { worker, busy: false, loaded: false, ready: new Promise<void>((resolve) => (markReady = resolve)) };
    const onReady = (message: ConversionReply) => {
      if (!("ready" in message)) return;
      worker.off("message", onReady);
      slot.loaded = true;
      markReady();
      dispatch(slot);
      // Referenced while it loads: a conversion waiting for it must keep the process alive.
      if (!slot.busy) worker.unref();
    };
    worker.on("message", onReady);
    const drop = (error: Error | undefined) => {
      if (!slots.delete(slot)) return;
      markReady();
      // A worker that never loaded cannot convert anything: the conversions waiting for it fail
      // (a bug or a broken install, 500) rather than wait for their deadline.
      if (!slot.loaded && error !== undefined) for (const waiter of queue.splice(0)) waiter.fail(new Error("The conversion worker failed to start.", { cause: error }));
      else replenish();
    };
    // The conversion a dying worker was running (if any) rejects on its own listeners (run).
    worker.on("error", (error) => drop(error));
    worker.on("exit", () => drop(undefined));
    slots.add(slot);
    return slot;
  };

  const release = (slot: Slot) => {
    slot.busy = false;
    slot.worker.unref();
    dispatch(slot);
  };

  const acquire = (deadline: Deadline | undefined): Promise<Slot> => {
    for (const slot of slots) if (slot.loaded && !slot.busy) return Promise.resolve(take(slot));
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at !== -1) queue.splice(at, 1);
        reject(conversionTimeLimit());
      };
      const waiter: Waiter = {
        start: (slot) => {
          deadline?.signal.removeEventListener("abort", onAbort);
          resolve(slot);
        },
        fail: (error) => {
          deadline?.signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      queue.push(waiter);
      deadline?.signal.addEventListener("abort", onAbort, { once: true });
      replenish();
    });
  };

  const run = (slot: Slot, input: ConversionInput, deadline: Deadline | undefined): Promise<RenderedDocument> => {
    const id = nextId++;
    const cancel = new SharedArrayBuffer(4);
    const { worker } = slot;
    return new Promise<RenderedDocument>((resolve, reject) => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      const settle = (reusable: boolean) => {
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        deadline?.signal.removeEventListener("abort", onAbort);
        if (grace !== undefined) clearTimeout(grace);
        if (reusable) return release(slot);
        slots.delete(slot);
        void worker.terminate();
        replenish();
      };
      const onMessage = (reply: ConversionReply) => {
        if ("ready" in reply || reply.id !== id) return;
        settle(true);
        if (reply.ok) resolve(reply.document);
        else if ("error" in reply) reject(new WebgateError(reply.error.code, reply.error.message, { details: reply.error.details, retryable: reply.error.retryable }));
        else reject(new Error(`The conversion failed: ${reply.bug}`));
      };
      const onError = (error: Error & { code?: string }) => {
        settle(false);
        if (error.code === "ERR_WORKER_OUT_OF_MEMORY") {
          reject(new WebgateError("content_too_complex", "Converting the page needed more memory than allowed.", { details: { reason: "conversion_memory_limit" } }));
        } else reject(new Error("The conversion worker failed.", { cause: error }));
      };
      const onExit = () => {
        settle(false);
        reject(closed ? new Error("The converter was closed.") : new Error("The conversion worker stopped unexpectedly."));
      };
      const onAbort = () => {
        Atomics.store(new Int32Array(cancel), 0, 1);
        grace = setTimeout(() => {
          settle(false);
          reject(conversionTimeLimit());
        }, graceMs);
        grace.unref();
      };
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      if (deadline?.signal.aborted) onAbort();
      else deadline?.signal.addEventListener("abort", onAbort, { once: true });
      const job: ConversionJob = { id, input, cancel };
      worker.postMessage(job);
    });
  };

  return {
    async convert(input, deadline) {
      if (closed) throw new Error("The converter was closed.");
      if (deadline?.expired()) throw conversionTimeLimit();
      const slot = await acquire(deadline);
      return run(slot, input, deadline);
    },
    async warm(count = maxWorkers) {
      while (!closed && slots.size < Math.min(count, maxWorkers)) spawn();
      // Workers stay referenced while they load (spawn), so a caller awaiting warm() never sees
      // the process exit; each one is unreferenced once loaded and idle.
      await Promise.all([...slots].filter((slot) => !slot.loaded).map((slot) => slot.ready));
    },
    async close() {
      closed = true;
      for (const waiter of queue.splice(0)) waiter.fail(new Error("The converter was closed."));
      await Promise.all([...slots].map((slot) => slot.worker.terminate()));
      slots.clear();
    },
  };
}
