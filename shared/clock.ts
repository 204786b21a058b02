/**
 * The time source. Pure code takes `now` from a {@link Clock} handed in, never from `Date.now()`,
 * so tests can fake time; {@link systemClock} is the one real clock, chosen by the composition roots.
 */

/** The time source (epoch ms); faked in tests. */
export interface Clock {
  now(): number;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => Date.now() };
