// Backend client entry (docs/README.md): `import { Client } from "@tessera/sdk/node"`.
export { ApiError, ArgumentError, NetworkError, TesseraError, TimeoutError, UnknownOptionError } from "../browser/errors.js";
export type { Challenge, Device, Evaluation } from "../contract/index.js";
export { Client, type ClientOptions, userToken } from "./client.js";
