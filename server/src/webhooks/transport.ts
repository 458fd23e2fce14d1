// How a webhook reaches its receiver (docs/webhooks.md, docs/security.md): a signed JSON POST over node:http(s), never following
// redirects. In production the connection goes through request-filtering-agent, which checks the address each
// connection actually uses — after DNS, so a name that resolves (or re-resolves: DNS rebinding) to loopback, a
// private, link-local, CGNAT, multicast, unspecified or metadata address is refused before anything is sent.
// Failures are recorded as generic classes: a delivery record must not map the inside of the network.
import http from "node:http";
import https from "node:https";
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from "request-filtering-agent";

/** `aborted`: the sender gave the POST up (the worker stopping); the receiver's answer, if any, is unknown. */
export type DeliveryOutcome = { status: number } | { error: string } | { aborted: true };

export interface WebhookTransport {
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<DeliveryOutcome>;
  close(): void;
}

/** Error classes a delivery record may show; the underlying address, port and system message are not recorded. */
export function errorClass(err: Error & { code?: string }, timeoutMs: number): string {
  const code = err.code ?? "";
  if (/is not allowed/.test(err.message)) return "address not allowed (loopback, private or internal network)";
  if (code === "TIMEOUT") return `timeout after ${timeoutMs} ms`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") return "DNS lookup failed";
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code)) return "TLS handshake failed";
  if (/^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EPIPE|ECONNABORTED)$/.test(code) || code === "ERR_STREAM_PREMATURE_CLOSE")
    return "connection failed";
  return "request failed";
}

export function createWebhookTransport(opts: { blockPrivate: boolean; timeoutMs: number }): WebhookTransport {
  const agentOptions = { keepAlive: true, allowPrivateIPAddress: !opts.blockPrivate };
  const agents = opts.blockPrivate
    ? { http: new RequestFilteringHttpAgent(agentOptions), https: new RequestFilteringHttpsAgent(agentOptions) }
    : { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return {
    post(url, headers, body, signal) {
      return new Promise((resolve) => {
        if (signal?.aborted) return resolve({ aborted: true });
        let settled = false;
        const done = (outcome: DeliveryOutcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(outcome);
        };
        const onAbort = () => {
          done({ aborted: true });
          req.destroy();
        };
        const target = new URL(url);
        const secure = target.protocol === "https:";
        const req = (secure ? https : http).request(
          target,
          {
            method: "POST",
            agent: secure ? agents.https : agents.http,
            headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
          },
          (res) => {
            // Only the status matters; the body is drained so the connection can be reused.
            res.resume();
            res.on("end", () => done({ status: res.statusCode ?? 0 }));
            res.on("error", () => done({ status: res.statusCode ?? 0 }));
          },
        );
        // One deadline for the whole exchange: connecting, sending, and the answer's status line.
        const timer = setTimeout(() => req.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })), opts.timeoutMs);
        req.on("error", (err) => done({ error: errorClass(err, opts.timeoutMs) }));
        signal?.addEventListener("abort", onAbort, { once: true });
        req.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
