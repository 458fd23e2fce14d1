// English messages: the reference catalogue; every other language has exactly these keys (type Messages).
const plural = (n: number, one: string, other: string) => (n === 1 ? one : other);

export const en = {
  dir: "ltr" as "ltr" | "rtl",
  language: "Language",
  pageTitle: (project: string) => `Verification · ${project}`,
  loading: "Loading…",
  intro: {
    account_takeover: [
      "Confirm it’s you",
      "We noticed a sign-in that looks unusual for your account. To keep it safe, confirm it’s you with a one-time code.",
    ],
    account_sharing: [
      "Too many devices on this account",
      "This account is used on more devices than allowed. The account owner can confirm with a one-time code and log out the devices they don’t use.",
    ],
    repeat_trial: [
      "Confirm your details",
      "This device was already used for a trial. Confirm your contact details with a one-time code to continue.",
    ],
    multi_accounting: [
      "Confirm it’s you",
      "This device is linked to other accounts. Confirm your contact details with a one-time code to continue.",
    ],
    fake_account: [
      "Confirm your contact details",
      "To protect this service from fake accounts, confirm your email or phone with a one-time code.",
    ],
    default: ["Confirm it’s you", "For your security, confirm it’s you with a one-time code."],
  } as Record<string, [string, string]>,
  limit: (n: number) => `Up to ${n} ${plural(n, "device is", "devices are")} allowed per account.`,
  noticed: "What we noticed",
  reasons: {
    new_ip: "A sign-in from a new network",
    new_device: "A sign-in from a new device or browser",
    impossible_travel: "Sign-ins from places too far apart in a short time",
    anonymous: "A connection through a VPN, proxy or Tor",
    devices: "More devices than allowed",
    shared: "A device shared by several accounts",
    velocity: "Many attempts in a short time",
    bot: "Activity that looks automated",
  } as Record<string, string>,
  continue: "Continue",
  skip: "Skip for now",
  notOwner: "Not the account owner?",
  signup: "Create my own account",
  channel: {
    title: "Where should we send your code?",
    all: "You need to confirm each of these.",
    email: (to: string) => `Email to ${to}`,
    text: (to: string) => `Text message to ${to}`,
    send: "Send code",
  },
  code: {
    title: "Enter your code",
    sentTo: (to: string) => `We sent a 6-digit code to ${to}. It is valid for 10 minutes.`,
    label: "6-digit code",
    verify: "Verify",
    attempts: (n: number) => `${n} ${plural(n, "attempt", "attempts")} left`,
    wrong: "That code is not right.",
    expired: "This code has expired. Send a new one.",
    resend: "Send a new code",
    resendIn: (s: number) => `You can send a new code in ${s} s.`,
    resendReady: "You can send a new code now.",
    resent: "A new code is on its way.",
    other: "Use another way",
  },
  devices: {
    title: "Log out the devices you don’t use",
    status: (n: number, limit: number) =>
      `This account is signed in on ${n} ${plural(n, "device", "devices")}; ${limit} ${plural(limit, "is", "are")} allowed.`,
    over: (k: number) => `Log out ${k} more ${plural(k, "device", "devices")} to continue.`,
    within: "You are within the limit. You can continue.",
    current: "This device",
    seen: (when: string) => `Last seen ${when}`,
    logout: "Log out",
    logoutLabel: (what: string) => `Log out ${what}`,
    kicked: (what: string) => `${what} was logged out.`,
    on: (browser: string, os: string) => `${browser} on ${os}`,
    unknown: "Unknown",
    type: { computer: "Computer", tablet: "Tablet", mobile: "Phone" } as Record<string, string>,
    none: "No other devices are signed in.",
  },
  done: {
    completed: "You’re verified",
    skipped: "Verification skipped",
    back: (project: string) => `Taking you back to ${project}…`,
    link: (project: string) => `Continue to ${project}`,
    close: "You can close this window.",
  },
  problem: {
    expired: ["This link has expired", "Verification links are valid for a short time. Go back and try again to get a new one."],
    failed: ["Verification failed", "We could not verify you. Go back and try again."],
    too_many_attempts: [
      "Too many attempts",
      "A wrong code was entered too many times, so this verification is closed. Go back and start again.",
    ],
    invalid_link: ["This link is not valid", "The link is incomplete or was changed. Open the link you were given again."],
    overridden: ["This verification was replaced", "A newer verification was started. Use the most recent link."],
    delivery_failed: ["We couldn’t send your code", "Sending the code failed. Try again, or choose another way."],
    error: ["Something went wrong", "Please try again in a moment."],
  } as Record<string, [string, string]>,
  retry: "Try again",
  back: (project: string) => `Back to ${project}`,
  errors: {
    rateLimited: (s: number) => `Too many requests. Try again in ${s} s.`,
    network: "We couldn’t reach the server. Check your connection and try again.",
    overLimit: "There are still more devices than allowed.",
    server: (message: string) => `The server answered: ${message}`,
  },
};

export type Messages = typeof en;
