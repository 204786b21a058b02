/**
 * The robots.txt check before every request to an origin (`WEBGATE_ROBOTS=respect`): the origin's
 * robots.txt is fetched through the guard, kept in the page table and in memory for its TTL, and
 * fetched once per origin per TTL even under concurrency: callers in one instance share one
 * in-flight fetch; other instances wait on the page store's lease and read the winner's record.
 */
import { randomBytes } from "node:crypto";
import { isWebgateError } from "../errors";
import { StoreUnavailableError } from "../cache/page-store";
import type { CacheLogger } from "../cache/cache-logger";
import type { Clock } from "../clock";
import type { GuardedClient } from "../guard/guarded-get";
import {
  assertRobotsAllow,
  recordForFailure,
  recordForResponse,
  robotsKeyFor,
  robotsTtlSeconds,
  robotsUrlFor,
  type RobotsRecord,
} from "./robots-policy";
import type { RobotsStore, StoredRobots } from "./robots-store";

export type RobotsMode = "respect" | "ignore";

export interface RobotsCheckerDeps {
  mode: RobotsMode;
  /** The guarded client for robots.txt requests (its own limits: at most 5 redirects). */
  guarded: GuardedClient;
  store: RobotsStore;
  clock: Clock;
  logger: CacheLogger;
  /** How long another instance's robots.txt fetch is waited for. */
  leaseMs: number;
  waitPollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Origins kept in memory per instance. */
const MEMORY_ENTRIES = 512;

export class RobotsChecker {
  private readonly memory = new Map<string, StoredRobots>();
  private readonly inflight = new Map<string, Promise<StoredRobots>>();
  private readonly instanceId = randomBytes(6).toString("hex");
  private readonly waitPollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: RobotsCheckerDeps) {
    this.waitPollMs = Math.max(1, deps.waitPollMs ?? 100);
    this.sleep = deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Resolves when `url` may be fetched.
   * @throws WebgateError `robots_disallowed` (a rule disallows the path), `robots_unavailable`
   *   (robots.txt is unreachable: 5xx, timeout, no connection).
   */
  async check(url: URL, signal?: AbortSignal): Promise<void> {
    if (this.deps.mode === "ignore") return;
    assertRobotsAllow(await this.recordFor(url, signal), url);
  }

  /**
   * The origin's record: memory, then the table, then one fetch for everyone. `signal` (the
   * request's deadline) aborts the robots.txt request; that abort is the caller's limit, not the
   * site's fault, so it is thrown (`upstream_timeout`) and never kept as "unreachable".
   */
  async recordFor(url: URL, signal?: AbortSignal): Promise<RobotsRecord> {
    const key = robotsKeyFor(url);
    const remembered = this.memory.get(key);
    if (remembered !== undefined && this.isFresh(remembered)) return remembered.record;
    let running = this.inflight.get(key);
    if (running === undefined) {
      running = this.load(key, url, signal).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    const stored = await running;
    this.remember(key, stored);
    return stored.record;
  }

  private async load(key: string, url: URL, signal: AbortSignal | undefined): Promise<StoredRobots> {
    let storeUp = true;
    try {
      const stored = await this.deps.store.get(key);
      if (stored !== undefined && this.isFresh(stored)) return stored;
    } catch (error) {
      storeUp = this.absorb(error, "lookup");
    }
    if (!storeUp) return this.fetchRecord(url, signal);
    const holder = `${this.instanceId}#${randomBytes(4).toString("hex")}`;
    let acquired = false;
    try {
      try {
        const maxPolls = Math.ceil(this.deps.leaseMs / this.waitPollMs);
        for (let poll = 0; ; poll++) {
          acquired = await this.deps.store.tryAcquireLease(key, holder, this.deps.leaseMs, this.deps.clock.now());
          // After every attempt: the previous holder may have stored the record meanwhile.
          const stored = await this.deps.store.get(key);
          if (stored !== undefined && this.isFresh(stored)) return stored;
          if (acquired || poll >= maxPolls) break;
          await this.sleep(this.waitPollMs);
        }
      } catch (error) {
        this.absorb(error, "lease");
      }
      // Holding the lease, or the holder overran it, or the store failed: fetch it ourselves.
      const fetched = await this.fetchRecord(url, signal);
      try {
        if (!(await this.deps.store.put(key, fetched))) this.deps.logger.warn("robots.txt too large to store; kept in memory only", { robotsKey: key });
      } catch (error) {
        this.absorb(error, "save");
      }
      return fetched;
    } finally {
      if (acquired) await this.deps.store.releaseLease(key, holder).catch((error: unknown) => this.absorb(error, "release"));
    }
  }

  private async fetchRecord(url: URL, signal: AbortSignal | undefined): Promise<StoredRobots> {
    let record: RobotsRecord;
    try {
      const response = await this.deps.guarded.get(robotsUrlFor(url).href, signal === undefined ? {} : { signal });
      record = recordForResponse(response.status, response.body, response.truncated === true);
    } catch (error) {
      // The request's own deadline, or a host name that does not resolve (the page would fail
      // the same way): the caller's error, not a robots.txt outcome, so nothing is kept.
      if (!isWebgateError(error) || signal?.aborted === true || error.code === "dns_failed") throw error;
      record = recordForFailure(error.code);
    }
    const fetchedAt = this.deps.clock.now();
    return { record, fetchedAt, expiresAt: Math.floor(fetchedAt / 1000) + robotsTtlSeconds(record) };
  }

  private isFresh(stored: StoredRobots): boolean {
    return stored.expiresAt * 1000 > this.deps.clock.now();
  }

  private remember(key: string, stored: StoredRobots): void {
    this.memory.delete(key);
    this.memory.set(key, stored);
    // Oldest first out: Map iteration follows insertion order.
    while (this.memory.size > MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value!);
  }

  /** Logs a store failure (returns false: the store is down); rethrows anything else. */
  private absorb(error: unknown, operation: string): boolean {
    if (!(error instanceof StoreUnavailableError)) throw error;
    this.deps.logger.warn("page store unavailable for robots.txt; fetching it directly", { operation, reason: error.reason, error: error.message });
    return false;
  }
}
