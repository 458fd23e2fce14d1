// Everything an evaluation or device call sends about this browser (docs/client-api.md), gathered only when the app
// calls the SDK. The consent level decides how much (see options.ts).
import type { Signals } from "../contract/evaluation.js";
import { automationSignals } from "./automation.js";
import { collectComponents } from "./components.js";
import type { Consent } from "./options.js";
import { visitorToken } from "./visitor-token.js";
import { windowMetrics } from "./window-metrics.js";

function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function pageUrl(consent: Consent): string {
  // Query strings and fragments can carry personal data (tokens, e-mails); security mode keeps the path only.
  const url = consent === "security" ? location.origin + location.pathname : location.href;
  return url.slice(0, 4096);
}

export async function collectSignals(consent: Consent): Promise<Signals> {
  const components = await collectComponents(consent);
  return {
    components,
    visitor_token: visitorToken(consent === "full"),
    automation: automationSignals(),
    url: pageUrl(consent),
    timezone: timeZone(),
    consent,
    window: windowMetrics(),
  };
}
