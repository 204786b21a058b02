import type { Deadline } from "../deadline";
import type { RenderedDocument, RenderInput } from "./render";
// render.ts itself (package.json "imports"); the Lambda bundles load it from a file of its own on
// the first conversion instead (infra/bundling.ts, RENDER_DOCUMENT_BUNDLE).
import { renderDocument } from "#render-document";

/** A document to convert: everything {@link renderDocument} takes but the deadline. */
export type ConversionInput = Omit<RenderInput, "deadline">;

/**
 * Where /fetch runs its conversion (decode, HTML → Markdown or text): the port between the fetch
 * service and the CPU-bound pipeline. Two adapters:
 * - {@link inProcessConverter} (Lambda, where an instance serves one request at a time, so
 *   nothing else waits on its thread; no worker start-up in the cold start, no copy of the body);
 * - `createWorkerConverter` (worker-converter.ts; the local server, which serves many requests
 *   on one event loop: a long conversion there must not hold up the others).
 *
 * Both stop at `deadline` with `content_too_complex` (`reason: "conversion_time_limit"`) and
 * throw exactly what {@link renderDocument} throws otherwise.
 */
export interface DocumentConverter {
  convert(input: ConversionInput, deadline: Deadline | undefined): Promise<RenderedDocument>;
}

/** The conversion on the calling thread, checked against the deadline cooperatively (conversion-deadline.ts). */
export const inProcessConverter: DocumentConverter = {
  convert: (input, deadline) => Promise.resolve().then(() => renderDocument({ ...input, deadline })),
};
