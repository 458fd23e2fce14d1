// Signal: headers an open or commercial proxy adds (Via, X-Proxy-ID, long X-Forwarded-For chains). Our own
// trusted proxies are already stripped by Fastify's trustProxy when computing the client IP; a chain of three or
// more hops, or a Via header reaching us, means another proxy sat in front of the client.
import type { SignalContext, SignalSet } from "./types.js";

const PROXY_HEADERS = ["via", "x-proxy-id", "proxy-connection", "x-bluecoat-via", "forwarded-for"];

export function forwarding({ input }: SignalContext): SignalSet["forwarding"] {
  const h = input.headers;
  if (PROXY_HEADERS.some((name) => h[name] !== undefined)) return { proxied: true };
  const xff = h["x-forwarded-for"];
  const hops = (Array.isArray(xff) ? xff.join(",") : (xff ?? "")).split(",").filter((s) => s.trim()).length;
  return { proxied: hops >= 3 };
}
