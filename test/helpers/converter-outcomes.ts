/**
 * The entry test/infra/bundling.test.ts bundles as the functions bundle converter.ts: converts
 * each input in process and reports the document, or the error with every field the route reads
 * and whether this bundle's own `isWebgateError` knows it (the pipeline runs in a bundle of its
 * own, with another copy of the class).
 */
import { inProcessConverter, type ConversionInput } from "../../shared/content/converter";
import { isWebgateError } from "../../shared/errors";

const ERROR_FIELDS = ["name", "code", "message", "status", "retryable", "expose", "details", "headers", "logReason"] as const;

export async function convertAll(inputs: ConversionInput[]): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  for (const input of inputs) {
    try {
      outcomes.push({ document: await inProcessConverter.convert(input, undefined) });
    } catch (error) {
      if (!isWebgateError(error)) {
        outcomes.push({ bug: String(error) });
        continue;
      }
      outcomes.push({ error: Object.fromEntries(ERROR_FIELDS.map((k) => [k, error[k]])), webgate: true });
    }
  }
  return outcomes;
}
