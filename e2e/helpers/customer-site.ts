// A static "customer site" on another origin than the Tessera server (another port): a page that contains only
// the SDK script tag and a few lines of code, served under a strict CSP so any eval or inline code would fail.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface CustomerSite {
  url: string;
  close(): Promise<void>;
}

const page = (serverUrl: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Customer site</title></head>
<body>
<h1>Customer site</h1>
<p>Evaluation: <output id="out">pending</output></p>
<button id="counter" type="button">clicked 0</button>
<script src="${serverUrl}/sdk/v3/tessera.js"></script>
<script src="/app.js"></script>
</body>
</html>
`;

// The "five lines" a customer writes. `window.tessera` lets the tests drive further calls.
const app = (clientId: string) => `const tessera = new Tessera({ clientId: ${JSON.stringify(clientId)} });
window.tessera = tessera;
tessera.evaluate.login({ user: "acct_42", email: "a@example.com" })
  .then((r) => { document.getElementById("out").textContent = r.evaluation_id; },
        (e) => { document.getElementById("out").textContent = "error " + e.name + " " + e.code; });
let clicks = 0;
document.getElementById("counter").addEventListener("click", (e) => { e.target.textContent = "clicked " + ++clicks; });
`;

export async function startCustomerSite(serverUrl: string, clientId: string): Promise<CustomerSite> {
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${serverUrl}`,
    `connect-src ${serverUrl}`,
    "style-src 'self'",
    "img-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/" || path === "/index.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": csp });
      res.end(page(serverUrl));
    } else if (path === "/app.js") {
      res.writeHead(200, { "content-type": "application/javascript; charset=utf-8" });
      res.end(app(clientId));
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  // "localhost" rather than 127.0.0.1: another origin than the server's 127.0.0.1, allowed in development.
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
