/**
 * Small statistics for the benchmarks: percentiles of latency samples. Pure (no I/O, no clock).
 */

/**
 * The `p`-th percentile (0–100) of `values` by linear interpolation between the two closest
 * ranks (the "R-7" definition of spreadsheets and NumPy's default): p50 of [1, 2, 3, 4] is 2.5.
 * The input is not modified. Throws a RangeError for no values or `p` outside 0–100.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("percentile of no values");
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile ${p} is outside 0-100`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const weight = rank - low;
  return sorted[low]! + (sorted[high]! - sorted[low]!) * weight;
}

/** Count, p50, p95 and max of a series of samples (milliseconds in the benches). */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** {@link Summary} of `values`; throws a RangeError for no values. */
export function summarize(values: readonly number[]): Summary {
  return { n: values.length, p50: percentile(values, 50), p95: percentile(values, 95), max: percentile(values, 100) };
}
