// Script-tag entry of the compatibility layer (docs/migrating.md): the IIFE build served at /sdk/v3/rupt.js assigns
// this default export to `window.Rupt`, the global the hosted service's script sets.
import { Rupt } from "./client.js";

export default Rupt;
