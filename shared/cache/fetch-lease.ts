/**
 * Single flight across instances: before fetching a URL an instance takes its lease in the page
 * store; an instance that loses the race polls for the holder's snapshot instead of fetching the
 * same page again, and fetches itself once the lease is free (the holder failed) or the wait is
 * over. Depends only on the store's lease calls, a {@link Clock} and a {@link CacheLogger}.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock";
import type { Deadline } from "../deadline";
import { logStoreDown, type CacheLogger } from "./cache-logger";
import { StoreUnavailableError, type PageStore, type SnapshotManifest } from "./page-store";

export interface FetchLeaseDeps {
  store: Pick<PageStore, "tryAcquireLease" | "releaseLease">;
  clock: Clock;
  logger: CacheLogger;
  /** Lease length: the fetch's whole time limit, so a lease outlives any honest fetch. */
  leaseMs: number;
  /** Pause between checks while another instance fetches. */
  waitPollMs: number;
  /** Names this instance in lease items. */
  instanceId: string;
  /** Waits between polls (the poll count, not the clock, bounds the wait). */
  sleep: (ms: number) => Promise<void>;
}

/**
 * What {@link FetchLease.takeOrAwait} ended with: the snapshot another instance (or an earlier
 * holder) saved meanwhile, or the go-ahead to fetch, with `release` to call once done (it does
 * nothing when the wait ran out without the lease).
 */
export type LeaseOutcome = { found: SnapshotManifest } | { found: undefined; release: () => Promise<void> };

export class FetchLease {
  constructor(private readonly deps: FetchLeaseDeps) {}

  /**
   * Takes the lease of `urlKey`, or waits for its holder: after every attempt, won or lost,
   * `findFresh` looks for a snapshot saved meanwhile (the previous holder may have saved and
   * released between the caller's lookup and this lease, and its snapshot is as fresh as a new
   * fetch would be). The wait ends after `leaseMs` worth of polls, or with `deadline` when half
   * of the time it had left is used up, so the other half is still there to fetch.
   *
   * Errors of the store or of `findFresh` propagate, after a lease taken here was released.
   */
  async takeOrAwait(urlKey: string, deadline: Deadline | undefined, findFresh: () => Promise<SnapshotManifest | undefined>): Promise<LeaseOutcome> {
    const { store, clock, leaseMs: fullLeaseMs, waitPollMs } = this.deps;
    const holder = `${this.deps.instanceId}#${randomBytes(4).toString("hex")}`;
    // The lease never outlives the request that holds it: if this invocation dies, the lease is
    // free when the invocation would have ended anyway, not some fixed time later.
    const leaseMs = deadline === undefined ? fullLeaseMs : Math.max(1, Math.min(fullLeaseMs, Math.floor(deadline.remainingMs())));
    const maxPolls = Math.ceil(fullLeaseMs / waitPollMs);
    const waitUntilRemaining = deadline === undefined ? 0 : deadline.remainingMs() / 2;
    let acquired = false;
    try {
      for (let poll = 0; ; poll += 1) {
        acquired = await store.tryAcquireLease(urlKey, holder, leaseMs, clock.now());
        const found = await findFresh();
        if (found !== undefined) {
          if (acquired) await this.release(urlKey, holder);
          return { found };
        }
        if (acquired || poll >= maxPolls) break;
        if (deadline !== undefined && deadline.remainingMs() - waitPollMs <= waitUntilRemaining) break;
        await this.deps.sleep(waitPollMs);
      }
    } catch (error) {
      if (acquired) await this.release(urlKey, holder);
      throw error;
    }
    // Either we hold the lease, or the holder overran leaseMs: the caller fetches either way.
    const held = acquired;
    return { found: undefined, release: () => (held ? this.release(urlKey, holder) : Promise.resolve()) };
  }

  private async release(urlKey: string, holder: string): Promise<void> {
    try {
      await this.deps.store.releaseLease(urlKey, holder);
    } catch (error) {
      // The lease expires on its own after leaseMs; a failed release only delays other instances.
      if (error instanceof StoreUnavailableError) logStoreDown(this.deps.logger, error, urlKey, "release");
      else throw error;
    }
  }
}
