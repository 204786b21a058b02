/**
 * Structured logs and metrics behind one small interface, so handlers and adapters never depend
 * on Powertools directly and tests can capture every line.
 *
 * Log fields are flat primitives. Callers never pass a URL's query string, a resolved address, a
 * secret or page content; {@link hostOf} is the helper for the one URL-derived field we log.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { METRICS_NAMESPACE } from "./metric-names";

export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type MetricUnitName = "Count" | "Milliseconds" | "Bytes";

export interface Telemetry {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  metric(name: string, unit: MetricUnitName, value: number, dimensions?: Record<string, string>): void;
  /** Publishes buffered metrics; called once at the end of each request. */
  flush(): void;
}

const UNITS: Record<MetricUnitName, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  Count: MetricUnit.Count,
  Milliseconds: MetricUnit.Milliseconds,
  Bytes: MetricUnit.Bytes,
};

/**
 * Powertools Logger (JSON lines with the request id) and Metrics (CloudWatch EMF documents on
 * stdout, which Lambda turns into metrics). `metrics: false` keeps a local server's output to
 * one log line per request.
 */
export function createPowertoolsTelemetry(serviceName: string, options: { metrics?: boolean } = {}): Telemetry {
  const logger = new Logger({ serviceName });
  const emitMetrics = options.metrics ?? true;
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  let buffered = 0;
  const clean = (fields: LogFields = {}) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    info: (message, fields) => logger.info(message, clean(fields)),
    warn: (message, fields) => logger.warn(message, clean(fields)),
    error: (message, fields) => logger.error(message, clean(fields)),
    metric(name, unit, value, dimensions) {
      if (!emitMetrics) return;
      if (dimensions && Object.keys(dimensions).length > 0) {
        // Dimensioned metrics go out as their own EMF document so that one request's
        // dimensions never leak onto another metric.
        const single = metrics.singleMetric();
        single.addDimensions(dimensions);
        single.addMetric(name, UNITS[unit], value);
        return;
      }
      metrics.addMetric(name, UNITS[unit], value);
      buffered += 1;
    },
    flush() {
      // Publishing an empty buffer only prints a warning.
      if (buffered === 0) return;
      buffered = 0;
      metrics.publishStoredMetrics();
    },
  };
}

/** A telemetry sink that keeps everything in memory: for tests and for the local server's quiet mode. */
export interface MemoryTelemetry extends Telemetry {
  lines: Array<{ level: "info" | "warn" | "error"; message: string; fields: LogFields }>;
  metrics: Array<{ name: string; unit: MetricUnitName; value: number; dimensions: Record<string, string> }>;
}

export function createMemoryTelemetry(): MemoryTelemetry {
  const sink: MemoryTelemetry = {
    lines: [],
    metrics: [],
    info: (message, fields = {}) => void sink.lines.push({ level: "info", message, fields }),
    warn: (message, fields = {}) => void sink.lines.push({ level: "warn", message, fields }),
    error: (message, fields = {}) => void sink.lines.push({ level: "error", message, fields }),
    metric: (name, unit, value, dimensions = {}) => void sink.metrics.push({ name, unit, value, dimensions }),
    flush: () => undefined,
  };
  return sink;
}

/** The host of a URL for log lines: never the path, query or userinfo. */
export function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
