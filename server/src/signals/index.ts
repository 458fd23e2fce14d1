// The signal registry: each signal is computed from the request (and the offline data) by one function in its
// own file. Order matters only where a signal reads another: geolocation first, the time zone needs its longitude.
import { automation } from "./automation.js";
import { contentSignal } from "./content.js";
import { email } from "./email.js";
import { forwarding } from "./forwarding.js";
import { geolocation } from "./geolocation.js";
import { timezone } from "./timezone.js";
import type { SignalContext, SignalSet } from "./types.js";
import { userAgent } from "./user-agent.js";

export type { SignalContext, SignalSet } from "./types.js";

export function collectSignals(ctx: SignalContext): SignalSet {
  const geo = geolocation(ctx);
  return {
    geolocation: geo,
    userAgent: userAgent(ctx),
    automation: automation(ctx),
    email: email(ctx),
    timezone: timezone(ctx, geo),
    forwarding: forwarding(ctx),
    content: contentSignal(ctx),
  };
}
