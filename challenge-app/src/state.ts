// The app's state as signals, and the moves between screens (docs/challenges.md, docs/challenge-app.md). Screens read these signals and call
// these actions; nothing else changes them. Which screen shows is decided here, from the challenge's status.

import { computed, signal } from "@preact/signals";
import type { ChallengeView, Channel, Device } from "@tessera/sdk/contract";
import { ApiError, api, authorise } from "./api.js";
import { lang, t } from "./i18n/index.js";
import { linkExpired } from "./link.js";

export type Problem = "expired" | "failed" | "too_many_attempts" | "invalid_link" | "overridden" | "delivery_failed" | "error";
export type Screen =
  | { name: "loading" }
  | { name: "intro" }
  | { name: "channel" }
  | { name: "code"; channel: Channel }
  | { name: "devices" }
  | { name: "done"; outcome: "completed" | "skipped" }
  | { name: "problem"; problem: Problem; detail?: string };

/** Devices allowed per user when the policy names no limit (docs/challenges.md). */
const DEFAULT_DEVICE_LIMIT = 3;
/** Long enough to read the done screen, short enough not to make anyone wait. */
const REDIRECT_DELAY_MS = 1200;

export const view = signal<ChallengeView | null>(null);
export const screen = signal<Screen>({ name: "loading" });
export const devices = signal<Device[]>([]);
/** The latest error or confirmation, shown in the screen's live region. */
export const notice = signal<{ kind: "error" | "info"; text: string } | null>(null);
export const busy = signal(false);
/** The channel of the latest send, for "try again" after a delivery failure. */
export const lastChannel = signal<Channel | null>(null);
/** Wall clock in ms, ticking once a second while a countdown is on screen. */
export const now = signal(Date.now());

export const projectName = computed(() => view.value?.project.name ?? "");
export const deviceLimit = computed(() => view.value?.device_limit ?? DEFAULT_DEVICE_LIMIT);
/**
 * The devices counted against the limit: every device the server lists — those signed in to the account and this
 * device, which joins it when the challenge passes — exactly as the server counts them when completing.
 */
export const countedDevices = computed(() => devices.value.length);
export const resendIn = computed(() => {
  const at = view.value?.resend_available_at;
  return at ? Math.max(0, Math.ceil((Date.parse(at) - now.value) / 1000)) : 0;
});
/** Channels still to confirm: all unverified ones when every channel is required, else all offered. */
export const openChannels = computed(() => {
  const v = view.value;
  if (!v) return [];
  return v.required_channels === "all"
    ? v.available_channels.filter((c) => !v.verified_channels.includes(c.channel))
    : v.available_channels;
});
/** The customer's page the user came from, as the server vouches for it (an allowed origin only). */
export const backHref = computed(() => view.value?.back_url ?? null);
export const successHref = computed(() => {
  const v = view.value;
  if (!v?.success_url) return null;
  const url = new URL(v.success_url, location.href);
  if (v.challenge.evaluation) url.searchParams.set("evaluation", v.challenge.evaluation);
  return url.href;
});

const go = (next: Screen) => {
  notice.value = null;
  screen.value = next;
};
const problem = (p: Problem, detail?: string) => go({ name: "problem", problem: p, detail });
const say = (kind: "error" | "info", text: string) => {
  notice.value = { kind, text };
};

const show = (v: ChallengeView) => {
  now.value = Date.now();
  view.value = v;
};

/** Reads ?challenge=&token= and opens the challenge; a second open (a reload) falls back to a plain read. */
export async function start(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const id = params.get("challenge");
  const token = params.get("token");
  if (!id || !token) return problem("invalid_link");
  authorise(id, token);
  go({ name: "loading" });
  try {
    let v: ChallengeView;
    try {
      v = await api.open();
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "invalid_transition")) throw err;
      v = await api.view();
    }
    await route(v);
  } catch (err) {
    fail(err, true);
  }
}

/** Shows the screen the challenge's status calls for. */
async function route(v: ChallengeView): Promise<void> {
  show(v);
  const c = v.challenge;
  const expired = !!v.expires_at && Date.parse(v.expires_at) <= Date.now();
  switch (c.status) {
    case "completed":
    case "skipped":
      return finish(c.status);
    case "overridden":
      return problem("overridden");
    case "failed":
      return problem(v.failure_reason ?? (v.attempts_left <= 0 ? "too_many_attempts" : expired ? "expired" : "failed"));
    case "verified":
      return afterVerified();
  }
  if (expired) return problem("expired");
  const last = c.channels?.at(-1);
  if (last) lastChannel.value = last;
  if (c.status === "code_sent" && (c.delivery_status === "failed" || c.delivery_status === "bounced"))
    return problem("delivery_failed", v.delivery_error);
  if (c.status === "code_sent" && last && openChannels.value.some((o) => o.channel === last)) return go({ name: "code", channel: last });
  if (c.status === "code_sent") return go({ name: "channel" });
  go({ name: "intro" });
}

async function afterVerified(): Promise<void> {
  // Every channel is required and one is still to confirm: back to the choice, showing only what remains.
  if (view.value?.required_channels === "all" && openChannels.value.length > 0) return go({ name: "channel" });
  if (view.value?.challenge.type !== "account_sharing") return finishWith(false);
  devices.value = await api.devices();
  go({ name: "devices" });
}

function finish(outcome: "completed" | "skipped"): void {
  go({ name: "done", outcome });
  const href = successHref.value;
  if (href) setTimeout(() => location.assign(href), REDIRECT_DELAY_MS);
}

/** Runs one API action with the buttons disabled; every failure is shown, none is swallowed. */
async function act(run: () => Promise<void>): Promise<void> {
  if (busy.value) return;
  busy.value = true;
  notice.value = null;
  try {
    await run();
  } catch (err) {
    fail(err, false);
  } finally {
    busy.value = false;
  }
}

function fail(err: unknown, fatal: boolean): void {
  const m = t.value;
  const e = err instanceof ApiError ? err : new ApiError(0, "internal", String(err));
  switch (e.code) {
    case "unauthorized":
      problem(linkExpired(new URLSearchParams(location.search).get("token")) ? "expired" : "invalid_link");
      return;
    case "forbidden":
    case "not_found":
      problem("invalid_link");
      return;
    case "too_many_attempts":
      problem("too_many_attempts");
      return;
    case "delivery_failed":
      problem("delivery_failed", e.message);
      return;
    case "code_expired":
      say("error", m.code.expired);
      return;
    case "over_device_limit":
      say("error", m.errors.overLimit);
      return;
  }
  const text =
    e.code === "rate_limited"
      ? m.errors.rateLimited(e.retryAfter ?? 60)
      : e.code === "network"
        ? m.errors.network
        : m.errors.server(e.message);
  if (fatal) problem("error", text);
  else say("error", text);
}

/** Past the intro: with one place to send the code there is nothing to choose, so it goes out at once. */
export const begin = () => {
  const only = openChannels.value.length === 1 ? openChannels.value[0] : undefined;
  return only ? send(only.channel) : go({ name: "channel" });
};
export const otherChannel = () => go({ name: "channel" });

export const send = (channel: Channel, resend = false) =>
  act(async () => {
    lastChannel.value = channel;
    const v = await api.send(channel, lang.value);
    show(v);
    if (v.challenge.delivery_status === "failed" || v.challenge.delivery_status === "bounced")
      return problem("delivery_failed", v.delivery_error);
    if (!resend) go({ name: "code", channel });
    else say("info", t.value.code.resent);
  });

export const verify = (code: string) =>
  act(async () => {
    try {
      await route(await api.verify(code));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === "invalid_code")) throw err;
      view.value = await api.view();
      if (view.value.attempts_left <= 0) return problem("too_many_attempts");
      // The attempts left are on the code screen already, updated by this read: said once.
      say("error", t.value.code.wrong);
    }
  });

export const kick = (device: Device, label: string) =>
  act(async () => {
    devices.value = await api.kick(device.id);
    say("info", t.value.devices.kicked(label));
  });

/** "Log out all other devices": every device listed but this one, in one call. */
export const kickOthers = () =>
  act(async () => {
    const before = devices.value.length;
    devices.value = await api.kickOthers();
    say("info", t.value.devices.kickedOthers(before - devices.value.length));
  });

/** Completes (or skips) and leaves; any other status in the answer is shown as an error, never looped on. */
async function finishWith(skipping: boolean): Promise<void> {
  const v = await api.complete(skipping);
  view.value = v;
  const s = v.challenge.status;
  if (s === "completed" || s === "skipped") return finish(s);
  problem("error", t.value.errors.server(`complete → ${s}`));
}

export const complete = () => act(() => finishWith(false));
export const skip = () => act(() => finishWith(true));

/** "Create my own account": the server records the choice (for user.converted) and names the signup page. */
export const signup = () =>
  act(async () => {
    location.assign((await api.signup()).redirect);
  });

/** After a generic failure: read the challenge again and show what its status calls for. */
export const retry = () => (view.value ? act(async () => route(await api.view())) : start());
