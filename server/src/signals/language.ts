// Signal: the browser's language (navigator.language, the first entry of FingerprintJS's `languages` component), for
// `is_new_language`: whether the user was ever let in from a browser set to it. A phone taken abroad keeps its owner's
// language while it takes the local time zone from the network; a stranger's browser keeps the stranger's, and an
// anti-detect browser takes the proxy country's with its zone. A weak check, like the zone: the client writes it.
import { BoundedMap } from "../caches.js";
import type { SignalContext } from "./types.js";

/** A BCP 47 tag of at most a language, script, region and variant: what browsers report. Longer input is not a tag. */
const TAG = /^[a-z]{2,3}(?:-[a-z0-9]{2,8}){0,3}$/i;

/**
 * The canonical tag (Intl's casing: "en-GB", "zh-Hant-TW"), or undefined when the browser sent none or something no
 * browser reports. FingerprintJS sends `[[navigator.language], navigator.languages]`; Chromium fills only the first.
 */
export function language({ input }: SignalContext): string | undefined {
  const value = input.signals.components?.languages?.value;
  const first = Array.isArray(value) && Array.isArray(value[0]) ? value[0][0] : undefined;
  if (typeof first !== "string") return undefined;
  const known = canonical.get(first);
  if (known !== undefined) return known || undefined;
  let tag = "";
  if (TAG.test(first)) {
    try {
      tag = Intl.getCanonicalLocales(first)[0] ?? "";
    } catch {
      // Not a tag Intl accepts: none.
    }
  }
  canonical.set(first, tag);
  return tag || undefined;
}

/**
 * Canonical tags by what browsers sent ("" for none): Intl.getCanonicalLocales cost 1 % of an evaluation's CPU in the
 * bench profile, and a few hundred tags cover almost all traffic.
 */
const canonical = new BoundedMap<string, string>(2000);
