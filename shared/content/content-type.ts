/**
 * The Content-Type header's parts, in a module of its own: the fetch path reads the media type
 * before any conversion, and importing it from decode.ts would put the charset decoders
 * (@exodus/bytes, html-encoding-sniffer: 40 KB of the fetch bundle) in the function's cold start
 * instead of in the conversion pipeline's side bundle, which only a conversion loads.
 */

/** Splits a Content-Type header into its lower-cased media type and its charset label. */
export function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  if (header === undefined) return { mediaType: "", charset: undefined };
  const [typePart = "", ...params] = header.split(";");
  const mediaType = typePart.trim().toLowerCase();
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    break;
  }
  // A value without a slash is no media type (RFC 9110 §8.3.1): treat it as absent and sniff.
  return { mediaType: /^[^/\s]+\/[^/\s]+$/.test(mediaType) ? mediaType : "", charset };
}
