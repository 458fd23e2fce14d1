// The wire contract: one zod definition of every object and request, shared by server, SDK, backend client and app.
export * from "./brand.js";
export * from "./challenge.js";
export * from "./checks.js";
export * from "./common.js";
export * from "./condition-check.js";
export * from "./console.js";
export * from "./device.js";
export * from "./evaluation.js";
export * from "./legacy.js";
export * from "./list.js";
export * from "./policy.js";
export * from "./user.js";
export * from "./webhook.js";
