// FingerprintJS components (docs/client-api.md): loaded once per page, on the first call (nothing runs before the app
// asks), with the vendor's monitoring ping off. Only component values are sent; the server computes the ids.
import { load, loadSources, sources } from "@fingerprintjs/fingerprintjs";
import type { Components } from "../contract/evaluation.js";
import type { Consent } from "./options.js";

// Under `consent: "security"` the techniques regulators single out as fingerprinting (canvas, audio, WebGL,
// font enumeration, math quirks, ad-block probes) do not run at all; what is left is what any page can read
// about its environment and is enough to tell a returning device from a new one for login security.
const SECURITY_EXCLUDED = [
  "fonts",
  "fontPreferences",
  "domBlockers",
  "audio",
  "audioBaseLatency",
  "canvas",
  "math",
  "webGlBasics",
  "webGlExtensions",
  "plugins",
  "applePay",
  "privateClickMeasurement",
] as const;

type Raw = Record<string, { value?: unknown; error?: unknown }>;

let full: Promise<() => Promise<Raw>> | undefined;
let security: (() => Promise<Raw>) | undefined;

function collector(consent: Consent): Promise<() => Promise<Raw>> {
  if (consent === "security") {
    security ??= loadSources(sources, { cache: {}, debug: false }, SECURITY_EXCLUDED) as () => Promise<Raw>;
    return Promise.resolve(security);
  }
  full ??= load({ monitoring: false }).then((agent) => async () => (await agent.get()).components as Raw);
  return full;
}

/** Collects the components and strips them to `{ value }` (errors and durations stay in the browser). */
export async function collectComponents(consent: Consent): Promise<Components> {
  const raw = await (await collector(consent))();
  const out: Components = {};
  for (const [name, component] of Object.entries(raw)) {
    if ("value" in component) out[name] = { value: component.value };
  }
  return out;
}
