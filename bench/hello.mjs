// The ceiling: a bare Fastify JSON route in its own process, on the same machine as the server under test.
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/hello", async () => ({ hello: "world" }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.send?.({ port: app.server.address().port });
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
