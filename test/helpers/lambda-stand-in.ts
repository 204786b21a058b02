/**
 * A loopback server speaking Lambda's Invoke wire format (`POST
 * /2015-03-31/functions/{name}/invocations`, the payload as the body, the function's result as a
 * 200 JSON answer), for the real Lambda client via `endpoint`: the render function invoked by the
 * fetch function, without AWS. A handler of `"never"` takes every invoke and never answers (a
 * render function that overruns), recording when the caller hangs up.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface LambdaStandIn {
  /** `http://127.0.0.1:<port>`, for createLambdaClient({ endpoint }). */
  endpoint: string;
  /** What happened, in order: `invoke <function>` per request, `hang-up` when a caller closed an unanswered invoke. */
  events: string[];
  /** Resolves at the first invoke. */
  firstInvoke: Promise<void>;
  /** Resolves when a caller first closes the connection of an invoke that was not answered. */
  firstHangUp: Promise<void>;
  close(): Promise<void>;
}

export type InvokeHandler = ((payload: unknown, functionName: string) => Promise<unknown>) | "never";

export async function startLambdaStandIn(handler: InvokeHandler): Promise<LambdaStandIn> {
  const events: string[] = [];
  let invoked: () => void = () => undefined;
  const firstInvoke = new Promise<void>((resolve) => (invoked = resolve));
  let hungUp: () => void = () => undefined;
  const firstHangUp = new Promise<void>((resolve) => (hungUp = resolve));
  const server = http.createServer((req, res) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(req.url ?? "");
    const functionName = decodeURIComponent(match?.[1] ?? "");
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      events.push(`invoke ${functionName}`);
      invoked();
      let answered = false;
      res.on("close", () => {
        if (answered) return;
        events.push("hang-up");
        hungUp();
      });
      if (match === null) {
        answered = true;
        res.writeHead(404, { "content-type": "application/json", "x-amzn-errortype": "ResourceNotFoundException" }).end('{"message":"no such function"}');
        return;
      }
      if (handler === "never") return;
      void handler(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown, functionName).then(
        (result) => {
          answered = true;
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
        },
        (error: unknown) => {
          // What Lambda answers for a handler that threw.
          answered = true;
          res.writeHead(200, { "content-type": "application/json", "x-amz-function-error": "Unhandled" }).end(JSON.stringify({ errorMessage: String(error) }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    firstInvoke,
    firstHangUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
