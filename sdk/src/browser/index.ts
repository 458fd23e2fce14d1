// ESM entry of the browser SDK (docs/sdk.md): `import Tessera from "@tessera/sdk"`.
export { ApiError, ArgumentError, NetworkError, TesseraError, TimeoutError, UnknownOptionError } from "./errors.js";
export type { Consent, DeviceOptions, EvaluateOptions, TesseraOptions } from "./options.js";
export { type Evaluate, type EvaluateResult, Tessera, Tessera as default } from "./tessera.js";
