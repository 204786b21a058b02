/**
 * The benches' clock for CPU-bound work: the CPU time of the calling thread, so that a figure
 * taken on a shared machine (this one has 2 cores and up to four sessions' test suites) counts the
 * work done, not the time spent waiting for a core. Wall-clock time under a load of 16 made a
 * 10 KB conversion (1-2 ms of work) one scheduler-slice-sized sample and ratios of 37x out of 2x.
 *
 * - On Linux: `/proc/thread-self/schedstat`, whose first field is the nanoseconds the thread has
 *   run on a CPU (kernel scheduler accounting, exact to the nanosecond, ~15 µs to read). It
 *   counts the converting thread only: not V8's concurrent-marking and parallel-scavenge helper
 *   threads, whose work runs beside it (on a loaded machine they compete for the same cores).
 * - Elsewhere: `process.cpuUsage()` (user + system time of the whole process, helpers included).
 *
 * CPU time still grows a little under load (shared caches, a core's sibling busy), so the benches
 * also interleave what they compare, and repeat each measurement to a minimum duration
 * ({@link measureCpu}).
 */
import { readFileSync } from "node:fs";

const SCHEDSTAT = "/proc/thread-self/schedstat";

function readSchedstatMs(): number | null {
  try {
    const line = readFileSync(SCHEDSTAT, "latin1");
    const ns = Number(line.slice(0, line.indexOf(" ")));
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The clock in use: its name (for the bench's notes) and a reading in milliseconds. */
export interface CpuClock {
  name: string;
  nowMs(): number;
}

/** The calling thread's CPU time where the OS gives it, else the process's. */
export function cpuClock(): CpuClock {
  if (readSchedstatMs() !== null) return { name: "CPU time of the converting thread (/proc/thread-self/schedstat)", nowMs: () => readSchedstatMs()! };
  return { name: "CPU time of the process (process.cpuUsage: user + system, GC helper threads included)", nowMs: processCpuMs };
}

/**
 * Runs `work` repeatedly until at least `minMs` of CPU time has passed on `clock` (at least once),
 * and returns the CPU time per run and the number of runs. A sample of one 1 ms conversion is
 * mostly the clock's and the scheduler's noise; a sample of 40 ms is not.
 */
export function measureCpu(clock: CpuClock, work: () => void, minMs: number): { msPerRun: number; runs: number; wallMsPerRun: number } {
  let runs = 0;
  const wall0 = performance.now();
  const t0 = clock.nowMs();
  let elapsed = 0;
  do {
    work();
    runs++;
    elapsed = clock.nowMs() - t0;
  } while (elapsed < minMs);
  return { msPerRun: elapsed / runs, runs, wallMsPerRun: (performance.now() - wall0) / runs };
}
