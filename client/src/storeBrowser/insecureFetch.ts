/**
 * A `fetch` for environments with `verifyTls: false` (test servers with self-signed certificates).
 *
 * Node's global fetch cannot turn certificate checks off for one request: that needs undici's
 * `Agent`, which Node bundles but does not export, and the process-wide
 * NODE_TLS_REJECT_UNAUTHORIZED would weaken every other connection of the editor. So this sends
 * the request with `node:https` and `rejectUnauthorized: false` on that request only, and returns a
 * standard `Response`. It supports what the REST client uses: method, headers, a string body, an
 * AbortSignal.
 */
import * as http from "node:http";
import * as https from "node:https";
import type { FetchLike } from "../rest/types";

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export const insecureFetch: FetchLike = (input, init = {}) => {
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  if (url.protocol !== "https:") return fetch(input, init);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init.body === "string" ? init.body : undefined;
    if (init.body !== undefined && init.body !== null && body === undefined) {
      reject(new TypeError("insecureFetch sends string bodies only"));
      return;
    }
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const request = https.request(url, { method: init.method ?? "GET", headers, rejectUnauthorized: false }, (response: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const status = response.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(name, v));
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        const content = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
        resolve(new Response(content, { status, statusText: response.statusMessage, headers: responseHeaders }));
      });
    });
    const onAbort = () => request.destroy(abortError(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("close", () => signal?.removeEventListener("abort", onAbort));
    request.on("error", reject);
    request.end(body);
  });
};

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("The operation was aborted.", "AbortError");
}
