// The signal registry: each signal is computed from the request (and the offline data) by one function in its
// own file. Order matters only where a signal reads another: geolocation first, the time zone needs its longitude and
// the network its kind and ASN; the user agent before the bot signals that compare the browser with it; the renderer
// before the hardware profile, which reads the GPU.
import { automation } from "./automation.js";
import { clientHints } from "./client-hints.js";
import { contentSignal } from "./content.js";
import { email } from "./email.js";
import { forwarding } from "./forwarding.js";
import { geolocation } from "./geolocation.js";
import { hardware } from "./hardware.js";
import { language } from "./language.js";
import { network } from "./network.js";
import { renderer } from "./renderer.js";
import { timezone } from "./timezone.js";
import type { SignalContext, SignalSet } from "./types.js";
import { userAgent } from "./user-agent.js";
import { windowMetrics } from "./window-metrics.js";

export type { SignalContext, SignalSet } from "./types.js";

export function collectSignals(ctx: SignalContext): SignalSet {
  const geo = geolocation(ctx);
  const ua = userAgent(ctx);
  const gpu = renderer(ctx);
  return {
    geolocation: geo,
    userAgent: ua,
    clientHints: clientHints(ctx, ua),
    renderer: gpu,
    window: windowMetrics(ctx, ua),
    hardware: hardware(ctx, ua, gpu),
    automation: automation(ctx),
    email: email(ctx),
    timezone: timezone(ctx, geo),
    language: language(ctx),
    forwarding: forwarding(ctx),
    network: network(ctx, geo),
    content: contentSignal(ctx),
  };
}
