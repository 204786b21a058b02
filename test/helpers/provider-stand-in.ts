/**
 * A loopback HTTP server that plays a search provider (or Secrets Manager) in tests. Each test
 * sets `reply` to decide the answer; every request is recorded with its headers and body.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | object;
}

/** `"hang"` accepts the request and never answers. */
export type Responder = (request: RecordedRequest) => Reply | "hang";

export interface StandIn {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  reply: Responder;
  /** Resolves with the next request the stand-in receives (read to its end). */
  nextRequest(): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export async function startStandIn(reply: Responder = () => ({ status: 404 })): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const waiting: Array<(request: RecordedRequest) => void> = [];
  const standIn: StandIn = {
    origin: "",
    requests,
    reply,
    nextRequest: () => new Promise<RecordedRequest>((resolve) => waiting.push(resolve)),
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        url: new URL(req.url ?? "/", "http://127.0.0.1"),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(recorded);
      for (const resolve of waiting.splice(0)) resolve(recorded);
      const answer = standIn.reply(recorded);
      if (answer === "hang") return;
      const body = answer.body === undefined ? "" : typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      const headers = { ...(typeof answer.body === "object" ? { "content-type": "application/json" } : {}), ...answer.headers };
      res.writeHead(answer.status, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return standIn;
}

/** A loopback port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** One search result as the Anthropic stand-in returns it; `cited` become citations in the answer's text. */
export interface AnthropicResultSpec {
  url: string;
  title: string;
  pageAge?: string | null;
  cited?: string[];
}

export interface AnthropicAnswerSpec {
  /** The query Claude searched for (the server_tool_use input). */
  query?: string;
  /** The search's results; omit for an answer in which Claude never searched. */
  results?: AnthropicResultSpec[];
  /** A web_search_tool_result_error code instead of results. */
  toolError?: string;
  stopReason?: "end_turn" | "pause_turn" | "max_tokens" | "refusal";
  /** usage.server_tool_use.web_search_requests; defaults to 1 when a search ran (0 on a tool error). */
  searches?: number;
}

/**
 * A Messages API answer in the wire format of Claude's web search tool (web_search_20250305):
 * a text preamble, `server_tool_use`, `web_search_tool_result` (results with opaque
 * `encrypted_content`, or a `web_search_tool_result_error`), text blocks whose `citations`
 * (`web_search_result_location`) carry `cited_text`, and `usage.server_tool_use`.
 */
export function anthropicAnswer(spec: AnthropicAnswerSpec): Record<string, unknown> {
  const toolId = "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE";
  const searched = spec.results !== undefined || spec.toolError !== undefined;
  const content: unknown[] = [{ type: "text", text: searched ? "I'll search the web for that." : "I can answer that from what I know." }];
  if (searched) {
    content.push({ type: "server_tool_use", id: toolId, name: "web_search", input: { query: spec.query ?? "rust book" } });
    content.push({
      type: "web_search_tool_result",
      tool_use_id: toolId,
      content:
        spec.toolError !== undefined
          ? { type: "web_search_tool_result_error", error_code: spec.toolError }
          : spec.results!.map((result, index) => ({
              type: "web_search_result",
              url: result.url,
              title: result.title,
              encrypted_content: Buffer.from(`opaque-${index}-${result.url}`).toString("base64"),
              ...(result.pageAge === undefined ? {} : { page_age: result.pageAge }),
            })),
    });
    for (const result of spec.results ?? []) {
      if (result.cited === undefined) continue;
      content.push({
        type: "text",
        text: `According to ${result.title}, it says so.`,
        citations: result.cited.map((cited, index) => ({
          type: "web_search_result_location",
          url: result.url,
          title: result.title,
          encrypted_index: Buffer.from(`index-${index}`).toString("base64"),
          cited_text: cited,
        })),
      });
    }
  } else {
    content.push({ type: "text", text: "Rust is a systems programming language.", citations: null });
  }
  const searches = spec.searches ?? (spec.results !== undefined ? 1 : 0);
  return {
    id: "msg_01Kp3NtWQ7vZpUeQmPVaVYMJ",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5-20251001",
    content,
    stop_reason: spec.stopReason ?? "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: 6039,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 131,
      server_tool_use: { web_search_requests: searches },
      service_tier: "standard",
    },
  };
}

/** An Anthropic API error body: `{ "type": "error", "error": { "type", "message" } }`. */
export function anthropicErrorBody(type: string, message: string): Record<string, unknown> {
  return { type: "error", error: { type, message }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" };
}
