// The OpenAPI document generated from the zod schemas of the routes (/openapi.json) and a rendered reference (/docs).
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Tessera API",
        version: "3.0.0",
        description:
          "Device trust and action evaluation. Server API: `Authorization: Bearer <secret key>`. Client API: a public client id from an allowed origin. Errors: `{ error: { status, code, message, param? } }`.",
      },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: { secretKey: { type: "http", scheme: "bearer" } } },
      security: [{ secretKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: "/docs", staticCSP: true, uiConfig: { docExpansion: "list", deepLinking: true } });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
