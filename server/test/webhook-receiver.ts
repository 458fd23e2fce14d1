// A real webhook receiver for tests: node:http on 127.0.0.1, recording every request; can fail the first N.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  port: number;
  url: string;
  received: Received[];
  /** Requests answered 500 before the receiver starts answering 204. */
  failFirst: number;
  attempts: number;
  close(): Promise<void>;
}

export async function startReceiver(opts: { port?: number; failFirst?: number } = {}): Promise<Receiver> {
  const r = { received: [] as Received[], failFirst: opts.failFirst ?? 0, attempts: 0 } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      r.attempts += 1;
      if (r.attempts <= r.failFirst) {
        res.writeHead(500).end("not yet");
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      r.received.push({ headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hook`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

/** A loopback port that nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` until it answers a value (not a timing assertion: the deadline only bounds a broken run). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
