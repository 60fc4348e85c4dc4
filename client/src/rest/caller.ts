/**
 * Authenticated API calls: adds the Authorization header, renews a password session once when
 * Airflow rejects it (401, or 403 "Invalid JWT token") and retries the request once, and turns
 * error statuses into typed errors.
 */
import { sessionRejected, type Authenticator } from "./auth";
import { errorFromResponse, parseJson, type HttpRequest, type HttpResponse, type HttpTransport } from "./http";

export interface ApiRequest extends Omit<HttpRequest, "headers"> {
  /** false for endpoints that need no authentication (`/api/v2/version`). */
  authenticated?: boolean;
}

export class ApiCaller {
  constructor(
    readonly transport: HttpTransport,
    readonly auth: Authenticator,
    /** Longest JSON text of a value, 0 = no limit (see validate.ts). */
    readonly maxValueLength: number,
  ) {}

  /** Sends the request and returns the response of a 2xx status; throws a typed error otherwise. */
  async send(req: ApiRequest): Promise<HttpResponse> {
    const authenticated = req.authenticated !== false;
    const options = { signal: req.signal, timeoutMs: req.timeoutMs };
    let header = authenticated ? await this.auth.authorization(options) : undefined;
    let res = await this.transport.send(withAuth(req, header));
    if (authenticated && sessionRejected(res)) {
      let renewed = false;
      if (await this.auth.renewAfterRejection(header, options)) {
        renewed = true;
        header = await this.auth.authorization(options);
        res = await this.transport.send(withAuth(req, header));
      }
      if (sessionRejected(res)) throw this.auth.rejected(res, renewed);
    }
    if (res.status < 200 || res.status >= 300) throw errorFromResponse(res);
    return res;
  }

  /** A call whose success body is JSON. */
  async json(req: ApiRequest): Promise<unknown> {
    return parseJson(await this.send(req));
  }

  /** A call whose success body is ignored (204, or PATCH's 200 with `null`). */
  async ignoreBody(req: ApiRequest): Promise<void> {
    await this.send(req);
  }
}

function withAuth(req: ApiRequest, header: string | undefined): HttpRequest {
  const { authenticated: _ignored, ...rest } = req;
  return header ? { ...rest, headers: { Authorization: header } } : rest;
}

/** Percent-encodes one path segment (dag ids, run ids with `:` and `+`, keys with `/`). */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}
