/**
 * The cache policy above the page store: hits by age, misses produced once (single flight in
 * this instance, see single-flight.ts, and across instances through the store's lease, see
 * fetch-lease.ts), and bypass when the store is down. Depends only on the {@link PageStore}
 * interface, a {@link Clock} and a {@link CacheLogger}.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../clock";
import type { Deadline } from "../deadline";
import { WebgateError } from "../errors";
import type { SnapshotMeta } from "../snapshot/snapshot-meta";
import { logStoreDown, type CacheLogger } from "./cache-logger";
import { FetchLease, type LeaseOutcome } from "./fetch-lease";
import { SnapshotCorruptError, StoreUnavailableError } from "./page-store";
import type { PageStore, SnapshotManifest } from "./page-store";
import { SingleFlight, untilDeadline } from "./single-flight";
import { memoryHandle, savedHandle, storedHandle, type SnapshotHandle } from "./snapshot-handle";
import { isSnapshotId, toWellFormed } from "./snapshot-layout";

export type CacheOutcome = "hit" | "miss" | "bypass";

/** What a fetch produced; a producer may return more (e.g. its origin figures), handed back as `produced`. */
export interface ProducedPage {
  content: string;
  meta: SnapshotMeta;
}

export interface CacheGetOptions<P extends ProducedPage = ProducedPage> {
  /** A stored snapshot at most this old (seconds) is a hit; 0 forces a fresh fetch. */
  maxAgeS: number;
  /** Fetches and converts the page; called at most once per concurrent miss. */
  produce: () => Promise<P>;
  /**
   * The request's deadline. With it the lease lasts only as long as this request may still run
   * (a winner that dies frees the URL when its own invocation would have ended), waiting for
   * another instance takes at most half the time left (the other half stays for fetching
   * ourselves), a shared in-instance fill is awaited only until this caller's own deadline, and
   * a snapshot produced too late to be saved is answered without the write. Without it: `leaseMs`.
   */
  deadline?: Deadline;
}

export interface CacheGetResult<P extends ProducedPage = ProducedPage> {
  cache: CacheOutcome;
  snapshot: SnapshotHandle;
  /**
   * What this caller's own `produce` returned, when it ran for this call; absent on a hit and for
   * a caller that shared another caller's fill (whose producer's figures are that caller's).
   */
  produced?: P;
}

export interface SnapshotCacheDeps {
  store: PageStore;
  clock: Clock;
  logger: CacheLogger;
  /** How long snapshots live (`WEBGATE_CACHE_TTL_S`). */
  ttlSeconds: number;
  /** Lease length: the fetch's whole time limit, so a lease outlives any honest fetch. */
  leaseMs: number;
  /** Pause between checks while another instance fetches. Default 100 ms. */
  waitPollMs?: number;
  /** Names this instance in lease items. Default: random. */
  instanceId?: string;
  /** Waits between polls; real timers by default (the poll count, not the clock, bounds the wait). */
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_WAIT_POLL_MS = 100;

/** Less time than this left on the deadline after producing: the snapshot is answered, not saved. */
export const MIN_SAVE_MS = 200;

/**
 * Snapshot cache for `/fetch`.
 *
 * - hit: the latest stored snapshot is at most `maxAgeS` old (by the clock).
 * - miss: `produce()` runs, the snapshot is saved, and the handle serves pages from memory.
 * - bypass: the store failed (lookup, lease or save); the page is produced and served from memory
 *   under a generated id that cannot be read back by id, and the failure is logged.
 *
 * Concurrent misses of one `urlKey` run `produce()` once: callers in this instance share the
 * in-flight promise (a failure reaches all of them with the same error); other instances lose the
 * lease race and poll for the winner's manifest for at most `leaseMs`, taking over the lease if it
 * is released without a manifest (the winner failed).
 */
export class SnapshotCache {
  private readonly store: PageStore;
  private readonly clock: Clock;
  private readonly logger: CacheLogger;
  private readonly ttlSeconds: number;
  private readonly lease: FetchLease;
  private readonly fills = new SingleFlight<CacheGetResult>();
  private readonly lookups = new SingleFlight<{ seen: SnapshotManifest | undefined; storeDown: boolean }>();

  constructor(deps: SnapshotCacheDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.ttlSeconds = deps.ttlSeconds;
    this.lease = new FetchLease({
      store: deps.store,
      clock: deps.clock,
      logger: deps.logger,
      leaseMs: deps.leaseMs,
      waitPollMs: Math.max(1, deps.waitPollMs ?? DEFAULT_WAIT_POLL_MS),
      instanceId: deps.instanceId ?? randomBytes(6).toString("hex"),
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    });
  }

  /** A snapshot of `urlKey`: stored (hit), freshly produced and saved (miss) or produced only (bypass). */
  async get<P extends ProducedPage>(urlKey: string, options: CacheGetOptions<P>): Promise<CacheGetResult<P>> {
    // A fill in progress produces the freshest possible snapshot, whatever maxAgeS asks for.
    const running = this.fills.current(urlKey);
    if (running !== undefined) return shared(untilDeadline(running, options.deadline));
    const { seen, storeDown } = await untilDeadline(this.lookup(urlKey), options.deadline);
    if (seen !== undefined && this.isYoungEnough(seen, options.maxAgeS)) {
      return { cache: "hit", snapshot: storedHandle(this.store, seen) };
    }
    // Single flight inside this instance: whoever comes first fills, the others share its promise.
    const started = this.fills.current(urlKey);
    if (started !== undefined) return shared(untilDeadline(started, options.deadline));
    return this.fills.begin(urlKey, this.fill(urlKey, options, seen, storeDown));
  }

  /**
   * The latest manifest, one store call for all concurrent callers of this instance: they then
   * all see the same outcome at the same moment (a failing store cannot make them miss one
   * another's fill because their lookups failed at different times).
   */
  private lookup(urlKey: string): Promise<{ seen: SnapshotManifest | undefined; storeDown: boolean }> {
    return this.lookups.run(urlKey, () =>
      this.store.findLatest(urlKey, this.clock.now()).then(
        (seen) => ({ seen, storeDown: false }),
        (error: unknown) => ({ seen: undefined, storeDown: this.absorb(error, urlKey, "lookup") }),
      ),
    );
  }

  /**
   * Exactly snapshot `id` of `urlKey`, so pages never shift while a caller pages through.
   * Absent, expired or corrupt (also when found out while reading) → `snapshot_expired`;
   * store unreachable → `store_unavailable`.
   */
  async getById(urlKey: string, id: string): Promise<SnapshotHandle> {
    if (!isSnapshotId(id)) throw expired(id);
    let manifest: SnapshotManifest | undefined;
    try {
      manifest = await this.store.findById(urlKey, id, this.clock.now());
    } catch (error) {
      throw this.toPublicError(error, urlKey, id);
    }
    if (manifest === undefined) throw expired(id);
    const found = manifest;
    return {
      manifest: found,
      read: async (start, end) => {
        try {
          return await this.store.readRange(found, start, end);
        } catch (error) {
          throw this.toPublicError(error, urlKey, id);
        }
      },
    };
  }

  /**
   * {@link get} plus one page read, recovering from a snapshot found corrupt while reading (it is
   * logged and refetched with `maxAgeS: 0`, never served) and from a store failing mid-read
   * (bypass). This is the call the fetch service needs.
   */
  async getPage<P extends ProducedPage>(
    urlKey: string,
    options: CacheGetOptions<P> & { start: number; end: number },
  ): Promise<{ cache: CacheOutcome; manifest: SnapshotManifest; content: string; produced?: P }> {
    const first = await this.get(urlKey, options);
    try {
      return { cache: first.cache, manifest: first.snapshot.manifest, content: await first.snapshot.read(options.start, options.end), produced: first.produced };
    } catch (error) {
      if (error instanceof SnapshotCorruptError) {
        this.logger.warn("snapshot corrupt; treated as a miss", { urlKey, snapshotId: first.snapshot.manifest.id, error: error.message });
        const again = await this.get(urlKey, { ...options, maxAgeS: 0 });
        return { cache: again.cache, manifest: again.snapshot.manifest, content: await again.snapshot.read(options.start, options.end), produced: again.produced };
      }
      if (error instanceof StoreUnavailableError) {
        logStoreDown(this.logger, error, urlKey, "read");
        const bypass = await this.bypass(urlKey, options.produce);
        return { cache: "bypass", manifest: bypass.snapshot.manifest, content: await bypass.snapshot.read(options.start, options.end), produced: bypass.produced };
      }
      throw error;
    }
  }

  private async fill<P extends ProducedPage>(
    urlKey: string,
    options: CacheGetOptions<P>,
    seen: SnapshotManifest | undefined,
    storeDown: boolean,
  ): Promise<CacheGetResult<P>> {
    if (storeDown) return this.bypass(urlKey, options.produce);
    let lease: LeaseOutcome;
    try {
      lease = await this.lease.takeOrAwait(urlKey, options.deadline, () => this.findFresh(urlKey, seen, options.maxAgeS));
    } catch (error) {
      this.absorb(error, urlKey, "lease");
      return this.bypass(urlKey, options.produce);
    }
    if (lease.found !== undefined) return { cache: "hit", snapshot: storedHandle(this.store, lease.found) };
    try {
      return await this.produceAndSave(urlKey, options.produce, seen, options.deadline);
    } finally {
      await lease.release();
    }
  }

  private async produceAndSave<P extends ProducedPage>(
    urlKey: string,
    produce: () => Promise<P>,
    seen: SnapshotManifest | undefined,
    deadline: Deadline | undefined,
  ): Promise<CacheGetResult<P>> {
    const produced = await produce();
    const content = toWellFormed(produced.content);
    // Ids sort by fetchedAt; within one millisecond the random tail decides. Stepping past the
    // snapshot we replace keeps the new one "latest" (e.g. when replacing a corrupt snapshot).
    const fetchedAt = Math.max(this.clock.now(), (seen?.fetchedAt ?? Number.NEGATIVE_INFINITY) + 1);
    if (deadline !== undefined && deadline.remainingMs() < MIN_SAVE_MS) {
      // The page is here but the write would overrun the request: answer it unsaved.
      this.logger.warn("no time left to save the snapshot; answering unsaved", { urlKey, remainingMs: Math.floor(deadline.remainingMs()) });
      return { cache: "bypass", snapshot: memoryHandle(urlKey, content, produced.meta, fetchedAt, this.ttlSeconds), produced };
    }
    try {
      const manifest = await this.store.save({ urlKey, content, meta: produced.meta, fetchedAt, ttlSeconds: this.ttlSeconds });
      // Served from memory: no need to read back what was just written.
      return { cache: "miss", snapshot: savedHandle(manifest, content), produced };
    } catch (error) {
      this.absorb(error, urlKey, "save");
      return { cache: "bypass", snapshot: memoryHandle(urlKey, content, produced.meta, fetchedAt, this.ttlSeconds), produced };
    }
  }

  private async bypass<P extends ProducedPage>(urlKey: string, produce: () => Promise<P>): Promise<CacheGetResult<P>> {
    const produced = await produce();
    const content = toWellFormed(produced.content);
    return { cache: "bypass", snapshot: memoryHandle(urlKey, content, produced.meta, this.clock.now(), this.ttlSeconds), produced };
  }

  /** The latest manifest if it appeared after our lookup or is young enough; store errors propagate. */
  private async findFresh(urlKey: string, seen: SnapshotManifest | undefined, maxAgeS: number): Promise<SnapshotManifest | undefined> {
    let latest: SnapshotManifest | undefined;
    try {
      latest = await this.store.findLatest(urlKey, this.clock.now());
    } catch (error) {
      if (!(error instanceof SnapshotCorruptError)) throw error;
      this.logger.warn("snapshot corrupt; treated as a miss", { urlKey, error: error.message });
      return undefined;
    }
    if (latest === undefined) return undefined;
    // A snapshot other than the one our lookup saw was saved after the lookup began: it is the
    // result of the concurrent fetch we would otherwise duplicate, fresh enough even for max age 0.
    return latest.id !== seen?.id || this.isYoungEnough(latest, maxAgeS) ? latest : undefined;
  }

  private isYoungEnough(manifest: SnapshotManifest, maxAgeS: number): boolean {
    const ageS = (this.clock.now() - manifest.fetchedAt) / 1000;
    return maxAgeS > 0 && ageS <= maxAgeS;
  }

  /**
   * Logs a store failure (returns true: the store is down) or a corrupt manifest (returns false:
   * a miss); rethrows anything else.
   */
  private absorb(error: unknown, urlKey: string, operation: string): boolean {
    if (error instanceof StoreUnavailableError) {
      logStoreDown(this.logger, error, urlKey, operation);
      return true;
    }
    if (error instanceof SnapshotCorruptError) {
      this.logger.warn("snapshot corrupt; treated as a miss", { urlKey, operation, error: error.message });
      return false;
    }
    throw error;
  }

  private toPublicError(error: unknown, urlKey: string, id: string): WebgateError {
    if (error instanceof StoreUnavailableError) {
      logStoreDown(this.logger, error, urlKey, "getById");
      return new WebgateError("store_unavailable", "The snapshot store is unavailable; retry shortly or omit snapshot_id.", { cause: error });
    }
    if (error instanceof SnapshotCorruptError) {
      this.logger.warn("snapshot corrupt; reported as expired", { urlKey, snapshotId: id, error: error.message });
      return expired(id, error);
    }
    if (error instanceof WebgateError) return error;
    return new WebgateError("internal", "snapshot read failed", { cause: error });
  }
}

/** Another caller's fill, as a caller that shared it sees it: without that caller's `produced`. */
async function shared<P extends ProducedPage>(fill: Promise<CacheGetResult>): Promise<CacheGetResult<P>> {
  const { cache, snapshot } = await fill;
  return { cache, snapshot };
}

function expired(id: string, cause?: unknown): WebgateError {
  return new WebgateError("snapshot_expired", "The snapshot is gone or expired; fetch again without snapshot_id.", {
    cause,
    details: { snapshot_id: id },
  });
}
