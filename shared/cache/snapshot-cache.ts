/**
 * The cache policy above the page store: hits by age, single-flight misses (in-instance and across
 * instances through a lease), and bypass when the store is down. Depends only on the
 * {@link PageStore} interface, a {@link Clock} and a {@link CacheLogger}.
 */
import { randomBytes } from "node:crypto";
import type { Deadline } from "../deadline";
import { WebgateError } from "../errors";
import { SnapshotCorruptError, StoreUnavailableError } from "./page-store";
import type { PageStore, SnapshotManifest } from "./page-store";
import type { SnapshotMeta } from "../snapshot/snapshot-meta";
import { expiresAtFor, isSnapshotId, newSnapshotId, sha256Hex, toWellFormed } from "./snapshot-layout";

/** The time source (epoch ms); faked in tests. */
export interface Clock {
  now(): number;
}

/**
 * The few log calls the cache makes; the Powertools Logger fits. Fields never hold content, a
 * URL or a query string: only the hashed URL key, snapshot ids and failure reasons.
 */
export interface CacheLogger {
  warn(message: string, fields: Record<string, string | number | boolean>): void;
}

/** A snapshot to read pages from. */
export interface SnapshotHandle {
  manifest: SnapshotManifest;
  /**
   * The content in `[start, end)`, clamped to the content. A stored snapshot whose chunks turn out
   * missing or corrupt throws {@link SnapshotCorruptError} (never wrong content); the caller then
   * calls `get()` again with `maxAgeS: 0`, which {@link SnapshotCache.getPage} does for it.
   */
  read(start: number, end: number): Promise<string>;
}

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
  private readonly leaseMs: number;
  private readonly waitPollMs: number;
  private readonly instanceId: string;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly inflight = new Map<string, Promise<CacheGetResult>>();
  private readonly lookups = new Map<string, Promise<{ seen: SnapshotManifest | undefined; storeDown: boolean }>>();

  constructor(deps: SnapshotCacheDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.ttlSeconds = deps.ttlSeconds;
    this.leaseMs = deps.leaseMs;
    this.waitPollMs = Math.max(1, deps.waitPollMs ?? DEFAULT_WAIT_POLL_MS);
    this.instanceId = deps.instanceId ?? randomBytes(6).toString("hex");
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** A snapshot of `urlKey`: stored (hit), freshly produced and saved (miss) or produced only (bypass). */
  async get<P extends ProducedPage>(urlKey: string, options: CacheGetOptions<P>): Promise<CacheGetResult<P>> {
    // A fill in progress produces the freshest possible snapshot, whatever maxAgeS asks for.
    const running = this.inflight.get(urlKey);
    if (running !== undefined) return shared(untilDeadline(running, options.deadline));
    const { seen, storeDown } = await untilDeadline(this.lookup(urlKey), options.deadline);
    if (seen !== undefined && this.isYoungEnough(seen, options.maxAgeS)) {
      return { cache: "hit", snapshot: this.storedHandle(seen) };
    }
    // Single flight inside this instance: whoever comes first fills, the others share its promise.
    const started = this.inflight.get(urlKey);
    if (started !== undefined) return shared(untilDeadline(started, options.deadline));
    const fill = this.fill(urlKey, options, seen, storeDown).finally(() => this.inflight.delete(urlKey));
    this.inflight.set(urlKey, fill);
    return fill;
  }

  /**
   * The latest manifest, one store call for all concurrent callers of this instance: they then
   * all see the same outcome at the same moment (a failing store cannot make them miss one
   * another's fill because their lookups failed at different times).
   */
  private lookup(urlKey: string): Promise<{ seen: SnapshotManifest | undefined; storeDown: boolean }> {
    const running = this.lookups.get(urlKey);
    if (running !== undefined) return running;
    const lookup = this.store.findLatest(urlKey, this.clock.now()).then(
      (seen) => ({ seen, storeDown: false }),
      (error: unknown) => ({ seen: undefined, storeDown: this.absorb(error, urlKey, "lookup") }),
    );
    const shared = lookup.finally(() => this.lookups.delete(urlKey));
    this.lookups.set(urlKey, shared);
    return shared;
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
        this.logStoreDown(error, urlKey, "read");
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
    const holder = `${this.instanceId}#${randomBytes(4).toString("hex")}`;
    const { deadline } = options;
    // The lease never outlives the request that holds it: if this invocation dies, the lease is
    // free when the invocation would have ended anyway, not some fixed time later.
    const leaseMs = deadline === undefined ? this.leaseMs : Math.max(1, Math.min(this.leaseMs, Math.floor(deadline.remainingMs())));
    const maxPolls = Math.ceil(this.leaseMs / this.waitPollMs);
    // Waiting for another instance ends when half of the time left is used up, so the other half
    // is still there to fetch ourselves if the holder never delivers.
    const waitUntilRemaining = deadline === undefined ? 0 : deadline.remainingMs() / 2;
    let acquired = false;
    try {
      for (let poll = 0; ; poll += 1) {
        acquired = await this.store.tryAcquireLease(urlKey, holder, leaseMs, this.clock.now());
        // Checked after every attempt, also a won one: the previous holder may have saved and
        // released between our lookup and our lease, and its snapshot is as fresh as ours would be.
        const fresh = await this.findFresh(urlKey, seen, options.maxAgeS);
        if (fresh !== undefined) {
          if (acquired) await this.release(urlKey, holder);
          return { cache: "hit", snapshot: this.storedHandle(fresh) };
        }
        if (acquired || poll >= maxPolls) break;
        if (deadline !== undefined && deadline.remainingMs() - this.waitPollMs <= waitUntilRemaining) break;
        await this.sleep(this.waitPollMs);
      }
    } catch (error) {
      if (acquired) await this.release(urlKey, holder);
      this.absorb(error, urlKey, "lease");
      return this.bypass(urlKey, options.produce);
    }
    // Either we hold the lease, or the holder overran leaseMs: fetch ourselves either way.
    try {
      return await this.produceAndSave(urlKey, options.produce, seen, deadline);
    } finally {
      if (acquired) await this.release(urlKey, holder);
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
      return { cache: "bypass", snapshot: memoryHandle(this.memoryManifest(urlKey, content, produced.meta, fetchedAt), content), produced };
    }
    try {
      const manifest = await this.store.save({ urlKey, content, meta: produced.meta, fetchedAt, ttlSeconds: this.ttlSeconds });
      // Served from memory: no need to read back what was just written.
      return { cache: "miss", snapshot: memoryHandle(manifest, content), produced };
    } catch (error) {
      this.absorb(error, urlKey, "save");
      return { cache: "bypass", snapshot: memoryHandle(this.memoryManifest(urlKey, content, produced.meta, fetchedAt), content), produced };
    }
  }

  private async bypass<P extends ProducedPage>(urlKey: string, produce: () => Promise<P>): Promise<CacheGetResult<P>> {
    const produced = await produce();
    const content = toWellFormed(produced.content);
    return { cache: "bypass", snapshot: memoryHandle(this.memoryManifest(urlKey, content, produced.meta, this.clock.now()), content), produced };
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

  private storedHandle(manifest: SnapshotManifest): SnapshotHandle {
    return { manifest, read: (start, end) => this.store.readRange(manifest, start, end) };
  }

  private memoryManifest(urlKey: string, content: string, meta: SnapshotMeta, fetchedAt: number): SnapshotManifest {
    const sha256 = sha256Hex(content);
    return {
      urlKey,
      id: newSnapshotId(fetchedAt),
      sha256,
      totalChars: content.length,
      fetchedAt,
      expiresAt: expiresAtFor(fetchedAt, this.ttlSeconds),
      meta,
      // One in-memory chunk: the layout invariant (chunks tile the content) still holds.
      chunks: content.length === 0 ? [] : [{ start: 0, end: content.length, sha256 }],
    };
  }

  private async release(urlKey: string, holder: string): Promise<void> {
    try {
      await this.store.releaseLease(urlKey, holder);
    } catch (error) {
      // The lease expires on its own after leaseMs; a failed release only delays other instances.
      if (error instanceof StoreUnavailableError) this.logStoreDown(error, urlKey, "release");
      else throw error;
    }
  }

  /**
   * Logs a store failure (returns true: the store is down) or a corrupt manifest (returns false:
   * a miss); rethrows anything else.
   */
  private absorb(error: unknown, urlKey: string, operation: string): boolean {
    if (error instanceof StoreUnavailableError) {
      this.logStoreDown(error, urlKey, operation);
      return true;
    }
    if (error instanceof SnapshotCorruptError) {
      this.logger.warn("snapshot corrupt; treated as a miss", { urlKey, operation, error: error.message });
      return false;
    }
    throw error;
  }

  private logStoreDown(error: StoreUnavailableError, urlKey: string, operation: string): void {
    this.logger.warn("page store unavailable; answering from the origin", { urlKey, operation, reason: error.reason, error: error.message });
  }

  private toPublicError(error: unknown, urlKey: string, id: string): WebgateError {
    if (error instanceof StoreUnavailableError) {
      this.logStoreDown(error, urlKey, "getById");
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

/**
 * `promise`, or `upstream_timeout` when `deadline` passes first (the promise is then left to
 * settle for whoever else awaits it, e.g. the instance's other callers of one fill).
 */
function untilDeadline<T>(promise: Promise<T>, deadline: Deadline | undefined): Promise<T> {
  if (deadline === undefined) return promise;
  const { signal } = deadline;
  if (signal.aborted) return Promise.reject(deadlineError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadlineError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: Error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Another caller's fill, as a caller that shared it sees it: without that caller's `produced`. */
async function shared<P extends ProducedPage>(fill: Promise<CacheGetResult>): Promise<CacheGetResult<P>> {
  const { cache, snapshot } = await fill;
  return { cache, snapshot };
}

function deadlineError(): WebgateError {
  return new WebgateError("upstream_timeout", "The request took longer than its time limit.");
}

function expired(id: string, cause?: unknown): WebgateError {
  return new WebgateError("snapshot_expired", "The snapshot is gone or expired; fetch again without snapshot_id.", {
    cause,
    details: { snapshot_id: id },
  });
}

function memoryHandle(manifest: SnapshotManifest, content: string): SnapshotHandle {
  return {
    manifest,
    read: (start, end) => {
      const from = Math.min(Math.max(Math.floor(start), 0), content.length);
      const to = Math.min(Math.max(Math.floor(end), from), content.length);
      return Promise.resolve(content.slice(from, to));
    },
  };
}
