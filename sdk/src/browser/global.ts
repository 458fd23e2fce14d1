// Script-tag entry (docs/sdk.md): the IIFE build assigns this default export to `window.Tessera`; the error
// classes ride along as static properties (`Tessera.ApiError`, …).
import { Tessera } from "./tessera.js";

export default Tessera;
