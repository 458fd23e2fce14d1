// Delivery receipts from the SMS provider (docs/challenges.md): the status-callback URL each text send hands the provider
// (delivery/callbacks.ts). No key: the URL itself is signed for one challenge and one send, and answers 404 otherwise.
// Twilio posts a form (`MessageStatus=delivered`), the generic provider JSON (`{ "status": "delivered" }`).
import { DeliveryReceipt, ErrorBody } from "@tessera/sdk/contract";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod/mini";
import { receiptOf } from "../delivery/callbacks.js";
import { notFound } from "../errors.js";
import type { Services } from "../services.js";
import { ok, SECURITY } from "./describe.js";

const Params = z.object({
  challenge: z.string().check(z.minLength(1), z.maxLength(200)),
  send: z.coerce.number().check(z.int(), z.minimum(1), z.maximum(1000)),
  token: z.string().check(z.minLength(1), z.maxLength(64)),
});

const deliveryCallbackRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.post(
    "/v3/delivery/text/:challenge/:send/:token",
    {
      schema: {
        tags: ["delivery"],
        summary: "Report the delivery of a text message (the SMS provider's status callback)",
        description:
          "Tessera hands this signed URL to the SMS provider with each code it texts. `delivered` moves the challenge's `delivery_status` to `delivered`, `undelivered` to `bounced`, `failed` to `failed`; other states change nothing, and a report on an older send of the same challenge never overwrites a newer one. A URL that was not signed for that challenge and send answers 404.",
        params: Params,
        security: SECURITY.none,
        body: z.nullish(DeliveryReceipt),
        response: { 204: ok(z.null(), "Recorded (or nothing to record)"), 400: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const { challenge, send, token } = req.params;
      const receipt = receiptOf(req.body?.MessageStatus ?? req.body?.status);
      const known = receipt
        ? await services.challenges.receipt(challenge, send, token, receipt)
        : services.challenges.receiptUrlValid(challenge, send, token);
      if (!known) throw notFound("Delivery callback");
      return reply.status(204).send(null);
    },
  );
};

export default deliveryCallbackRoutes;
