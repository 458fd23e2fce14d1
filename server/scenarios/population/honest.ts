// The honest population and its traffic: households of people, each with a phone, often a computer, sometimes a
// tablet shared by the household; their accounts (a first sign-up by email, as sign-up forms send it, or an account
// that existed before the service met it); and what happens to their browsers day by day — browser and OS updates,
// a laptop docked to a monitor, a font installed, travel, a private window, cleared storage, Safari's 7-day storage
// cap, Brave's new farbling after a restart. `honestTraffic` yields the visits in time order with the truth about
// each (which physical browser it is, what drifted since its last visit): an attack generator can be added beside.

import { BROWSER_VERSIONS, type BrowserState, components, ENGINE, familyOf, userAgent } from "./browsers.js";
import { type BrowserId, type DeviceModel, FONTS, LOCALES, MODELS, OS_BUILDS, OS_UPDATE } from "./catalogue.js";
import { chance, int, pick, type Rng, stream, weighted } from "./random.js";

type Locale = (typeof LOCALES)[number][0];

export interface Person {
  id: string;
  household: number;
  householdSize: number;
  locale: Locale;
  /** Where the household lives (a member may keep another locale: an expat's browser). */
  home: Locale;
  email: string;
  /** The customer application's id of their account. */
  user: string;
  /** The day of their first sign-up, or null: an account that existed before (first seen on a login). */
  signsUpOn: number | null;
  /** Uses private windows now and then. */
  privateBrowsing: boolean;
  /** Works at an office on weekdays: the computer on the office network, the phone on its carrier on the way. */
  commuter: boolean;
  /** A corporate VPN on the computer (exits in one provider's ASN), or a consumer VPN on some sessions. */
  vpn?: "corporate" | "consumer";
  /** Clears cookies and site data often (an extension, or "clear on exit"). */
  clearsStorage: boolean;
  browsers: Browser[];
  /**
   * The look-alikes of a sign-up farm (cohorts): students of a university residence behind its NAT signing up on one
   * morning, a family signing its members up one after another on its home line, a phone shop setting up customers'
   * new phones of one model on its own network.
   */
  cohort?: "campus" | "family" | "shop";
  /** The sign-up's time of day (ms after midnight), else any. */
  signupAt?: number;
  /** The network of the sign-up (a shop's), else the person's usual ones. */
  signupNetwork?: { kind: "home" | "work"; id: string };
  /** The home network's id when it is not the household's own (a residence's NAT). */
  homeNetwork?: string;
  /** The browser the sign-up is made on (a shop's new phone), by key, else any of the person's. */
  signupBrowser?: string;
}

/** The honest groups friction is reported for; a person may be in several. */
export const GROUPS = [
  "commuters",
  "travellers",
  "vpn users",
  "families",
  "cleared storage",
  "privacy browsers",
  "new users",
  "campus/office NAT",
  "family sign-ups",
  "phone shop",
] as const;
export type Group = (typeof GROUPS)[number];

/** The groups a person belongs to (travellers are known from the traffic: see HonestVisit.groups). */
export function groupsOf(p: Person): Group[] {
  const out: Group[] = [];
  if (p.commuter) out.push("commuters");
  if (p.vpn) out.push("vpn users");
  if (p.browsers.some((b) => b.users.length > 1) || p.householdSize > 1) out.push("families");
  if (p.clearsStorage) out.push("cleared storage");
  if (p.privateBrowsing || p.browsers.some((b) => b.state.browser === "brave" || b.state.rfp)) out.push("privacy browsers");
  if (p.signsUpOn !== null) out.push("new users");
  if (p.cohort === "campus") out.push("campus/office NAT");
  if (p.cohort === "family") out.push("family sign-ups");
  if (p.cohort === "shop") out.push("phone shop");
  return out;
}

/** One browser profile on one physical device: the truth the measurements compare the service's answers with. */
export interface Browser {
  /** Unique per physical device and browser profile. */
  key: string;
  family: string;
  model: DeviceModel;
  state: BrowserState;
  token: string;
  tokenSerial: number;
  /** Persons using this profile (a household's shared tablet has several). */
  users: Person[];
  lastVisitDay: number;
  /** What changed since the last visit (cleared at each visit). */
  pending: Set<string>;
  tokenLost: boolean;
  usesExternal: boolean;
}

export interface HonestVisit {
  at: number;
  day: number;
  person: Person;
  browser: Browser;
  action: "signup" | "login" | "access";
  /** Omitted on a first sign-up: the form knows the email only. */
  user?: string;
  email: string;
  userAgent: string;
  components: Record<string, unknown>;
  token: string;
  timezone: string;
  /**
   * Where the request comes from, resolved to a real IP by the runner: `id` names one network (a home, an office, a
   * hotel, a person's carrier, a company's VPN gateway, a VPN provider), `session` the address within it (a carrier's
   * pool and a VPN's exits hand out another address per session).
   */
  network: { kind: "home" | "work" | "cellular" | "travel" | "vpn"; id: string; country: string; session: string };
  /** The person's groups, travellers included while away. */
  groups: Group[];
  truth: {
    firstSignup: boolean;
    firstVisit: boolean;
    private: boolean;
    tokenLost: boolean;
    drift: string[];
  };
}

export interface PopulationOptions {
  seed: number;
  people: number;
  days: number;
  /** Draw devices from the held-out models only (true), from the others (false). */
  heldOut: boolean;
  /** The first day's midnight, UTC milliseconds. */
  start: number;
}

const DAY = 24 * 3600 * 1000;

function pickBrowser(r: Rng, model: DeviceModel): BrowserId {
  return weighted(r, model.browsers);
}

function newState(r: Rng, model: DeviceModel, browser: BrowserId, owner: Person): BrowserState {
  const osBuild = weighted(r, OS_BUILDS[model.os]);
  const version = browser === "safari" ? Number(osBuild.split(".")[0]) : weighted(r, BROWSER_VERSIONS[browser]);
  const extra: string[] = [];
  if (model.os === "windows" || model.os === "macos") {
    if (chance(r, model.os === "windows" ? 0.45 : 0.3)) extra.push(...FONTS.office);
    if (chance(r, 0.08)) extra.push(...FONTS.adobe);
    if (model.os === "windows" && (owner.locale.lang.startsWith("ja") || chance(r, 0.05))) extra.push(...FONTS.cjk);
    if (model.os === "windows" && chance(r, 0.04)) extra.push(...FONTS.corel);
  }
  return {
    model,
    browser,
    version,
    osBuild,
    cores: pick(r, model.cores),
    ramGb: pick(r, model.ramGb),
    screen: model.screens.length > 1 && chance(r, 0.25) ? int(r, 1, model.screens.length - 1) : 0,
    docked: false,
    externalScreen: pick(r, [
      [1920, 1080],
      [2560, 1440],
      [1920, 1200],
      [3440, 1440],
    ] as Array<[number, number]>),
    extraFonts: extra,
    textSize: chance(r, 0.06) ? 1 : 0,
    dockSize: pick(r, [70, 80, 60, 0]),
    taskbar: pick(r, [40, 40, 40, 50, 30]),
    tz: owner.locale.tz,
    lang: owner.locale.lang,
    langs: owner.locale.langs,
    locale: owner.locale.locale,
    reducedMotion: chance(r, 0.05),
    applePay: chance(r, 0.6),
    contentBlocker: chance(r, 0.15) ? ["adGuardBase", "easyList"] : [],
    pdfViewer: !chance(r, 0.03),
    private: false,
    farbleSession: int(r, 1, 1e9),
    rfp: browser === "firefox" && chance(r, 0.25),
  };
}

/** The population: people in households with their browsers. Deterministic in `opts.seed`. */
export function population(opts: PopulationOptions): Person[] {
  const models = MODELS.filter((m) => !!m.heldOut === opts.heldOut);
  const phones = models.filter((m) => m.kind === "mobile");
  const computers = models.filter((m) => m.kind === "computer");
  const tablets = models.filter((m) => m.kind === "tablet");
  const people: Person[] = [];
  let household = 0;
  while (people.length < opts.people) {
    const r = stream(opts.seed, "household", household);
    const size = Math.min(
      opts.people - people.length,
      weighted(r, [
        [1, 0.35],
        [2, 0.35],
        [3, 0.18],
        [4, 0.12],
      ] as const),
    );
    const locale = weighted(r, LOCALES);
    const members: Person[] = [];
    for (let i = 0; i < size; i++) {
      const n = people.length + i;
      const p = stream(opts.seed, "person", n);
      members.push({
        id: `p${opts.seed}-${n}`,
        household,
        householdSize: size,
        home: locale,
        locale: chance(p, 0.9) ? locale : weighted(p, LOCALES),
        email: `person.${opts.seed}.${n}@${pick(p, ["gmail.com", "gmail.com", "outlook.com", "icloud.com", "yahoo.com", "example.org"])}`,
        user: `acct_${opts.seed}_${n}`,
        signsUpOn: chance(p, 0.7) ? int(p, 0, Math.max(0, opts.days - 3)) : null,
        privateBrowsing: chance(p, 0.2),
        commuter: chance(p, 0.35),
        ...(chance(p, 0.1) ? { vpn: chance(p, 0.5) ? ("corporate" as const) : ("consumer" as const) } : {}),
        clearsStorage: chance(p, 0.08),
        browsers: [],
      });
    }
    for (const [i, person] of members.entries()) {
      const p = stream(opts.seed, "devices", person.id);
      const own = (model: DeviceModel, users: Person[]): Browser => {
        const browser = pickBrowser(p, model);
        const key = `${person.id}/${model.id}/${browser}/${i}`;
        return {
          key,
          family: familyOf(browser, model.os),
          model,
          state: newState(p, model, browser, person),
          token: "",
          tokenSerial: 0,
          users,
          lastVisitDay: -1,
          pending: new Set(),
          tokenLost: false,
          usesExternal: chance(p, model.external),
        };
      };
      if (phones.length && chance(p, 0.95)) person.browsers.push(own(pick(p, phones), [person]));
      if (computers.length && chance(p, 0.75)) person.browsers.push(own(pick(p, computers), [person]));
      // A second browser on the computer now and then (Chrome beside Safari or Edge).
      const computer = person.browsers.find((b) => b.model.kind === "computer");
      if (computer && chance(p, 0.1)) {
        const other = computer.model.browsers.map(([b]) => b).find((b) => b !== computer.state.browser);
        if (other) {
          const b = own(computer.model, [person]);
          b.key = `${computer.key}+${other}`;
          b.state = {
            ...computer.state,
            browser: other,
            version: other === "safari" ? computer.state.version : weighted(p, BROWSER_VERSIONS[other]),
          };
          b.family = familyOf(other, computer.model.os);
          person.browsers.push(b);
        }
      }
      if (person.browsers.length === 0 && computers.length) person.browsers.push(own(pick(p, computers), [person]));
    }
    // A household tablet, shared by its members (one browser profile, one visitor token, several accounts).
    const h = stream(opts.seed, "tablet", household);
    if (tablets.length && chance(h, 0.3)) {
      const owner = members[0] as Person;
      const model = pick(h, tablets);
      const browser = pickBrowser(h, model);
      const shared: Browser = {
        key: `h${opts.seed}-${household}/${model.id}/${browser}`,
        family: familyOf(browser, model.os),
        model,
        state: newState(h, model, browser, owner),
        token: "",
        tokenSerial: 0,
        users: members,
        lastVisitDay: -1,
        pending: new Set(),
        tokenLost: false,
        usesExternal: false,
      };
      for (const m of members) m.browsers.push(shared);
    }
    people.push(...members);
    household++;
  }
  return people;
}

/** A browser of `model` for `owner` (and `users`), keyed under `key`. */
function makeBrowser(r: Rng, model: DeviceModel, owner: Person, users: Person[], key: string): Browser {
  const browser = pickBrowser(r, model);
  return {
    key: `${key}/${model.id}/${browser}`,
    family: familyOf(browser, model.os),
    model,
    state: newState(r, model, browser, owner),
    token: "",
    tokenSerial: 0,
    users,
    lastVisitDay: -1,
    pending: new Set(),
    tokenLost: false,
    usesExternal: chance(r, model.external),
  };
}

/**
 * The honest look-alikes of a sign-up farm, each reported as a group of its own (GROUPS): what a farm's counts per
 * address see, from real people. Households numbered from `household0` (none of the population's).
 * - a university residence behind one NAT: 24–36 students signing up on one morning, each on their own phone or
 *   computer (diverse, consistent devices; an international student's browser in its own language, on the
 *   residence's zone), and living there afterwards;
 * - three families signing their 2–5 members up one after another, minutes apart, on their home line, on their own
 *   phones, a parent's computer, or the household's shared computer or tablet;
 * - a phone shop setting up 10–16 customers' new phones of one model over a day (identical components, a new visitor
 *   token each) on the shop's network; each phone then goes home with its customer.
 */
export function cohorts(opts: PopulationOptions, household0: number): Person[] {
  const models = MODELS.filter((m) => !!m.heldOut === opts.heldOut);
  const phones = models.filter((m) => m.kind === "mobile");
  const computers = models.filter((m) => m.kind === "computer");
  const tablets = models.filter((m) => m.kind === "tablet");
  const out: Person[] = [];
  let household = household0;
  const signupDay = (r: Rng) => int(r, 1, Math.max(1, opts.days - 3));
  const person = (tag: string, home: Locale, locale: Locale, day: number, cohort: Person["cohort"]): Person => ({
    id: `p${opts.seed}-${tag}`,
    household: household++,
    householdSize: 1,
    home,
    locale,
    email: `${tag}.${opts.seed}@${pick(stream(opts.seed, "cohort-mail", tag), ["gmail.com", "outlook.com", "icloud.com", "yahoo.com"])}`,
    user: `acct_${opts.seed}_${tag}`,
    signsUpOn: day,
    privateBrowsing: false,
    commuter: false,
    clearsStorage: false,
    browsers: [],
    cohort,
  });
  // ---- a university residence's morning --------------------------------------------------------------------------
  {
    const r = stream(opts.seed, "cohort", "campus");
    const home = weighted(r, LOCALES);
    const day = signupDay(r);
    const n = int(r, 24, 36);
    for (let i = 0; i < n; i++) {
      const p = stream(opts.seed, "cohort-campus", i);
      const own = weighted(p, LOCALES);
      const locale = chance(p, 0.15) && own.country !== home.country ? { ...own, tz: home.tz, country: home.country } : home;
      const s = person(`campus${i}`, home, locale, day, "campus");
      s.homeNetwork = `campus-${opts.seed}`;
      s.signupAt = int(p, 8 * 3600, 12 * 3600) * 1000;
      if (phones.length && chance(p, 0.95)) s.browsers.push(makeBrowser(p, pick(p, phones), s, [s], s.id));
      if (computers.length && (chance(p, 0.85) || !s.browsers.length)) s.browsers.push(makeBrowser(p, pick(p, computers), s, [s], s.id));
      out.push(s);
    }
  }
  // ---- families signing up one after another ----------------------------------------------------------------------
  for (let f = 0; f < 3; f++) {
    const r = stream(opts.seed, "cohort", "family", f);
    const home = weighted(r, LOCALES);
    const day = signupDay(r);
    const size = int(r, 2, 5);
    const hh = household++;
    let at = int(r, 8 * 3600, 20 * 3600) * 1000;
    const members: Person[] = [];
    for (let i = 0; i < size; i++) {
      const p = stream(opts.seed, "cohort-family", f, i);
      const m = person(`fam${f}m${i}`, home, home, day, "family");
      m.household = hh;
      m.householdSize = size;
      m.signupAt = at;
      at += int(p, 2, 10) * 60_000;
      m.signupNetwork = { kind: "home", id: `home-${opts.seed}-${hh}` };
      if (phones.length && chance(p, i < 2 ? 0.95 : 0.7)) m.browsers.push(makeBrowser(p, pick(p, phones), m, [m], m.id));
      if (computers.length && i < 2 && chance(p, 0.5)) m.browsers.push(makeBrowser(p, pick(p, computers), m, [m], m.id));
      members.push(m);
    }
    // The household's shared computer or tablet: whoever has no device of their own signs up on it.
    const sharedModels = chance(r, 0.5) && tablets.length ? tablets : computers;
    const shared = makeBrowser(r, pick(r, sharedModels), members[0] as Person, members, `h${opts.seed}-fam${f}`);
    for (const m of members) {
      if (!m.browsers.length) m.signupBrowser = shared.key;
      m.browsers.push(shared);
    }
    out.push(...members);
  }
  // ---- a phone shop's day -------------------------------------------------------------------------------------------
  if (phones.length) {
    const r = stream(opts.seed, "cohort", "shop");
    const home = weighted(r, LOCALES);
    const day = signupDay(r);
    const model = pick(r, phones);
    // A new phone's own browser (Safari, Chrome, Samsung Internet), set up as it leaves the box.
    const browser = (model.browsers[0] as readonly [BrowserId, number])[0];
    const n = int(r, 10, 16);
    let at = int(r, 10 * 3600, 11 * 3600) * 1000;
    const customers: Person[] = [];
    for (let i = 0; i < n; i++) {
      const p = stream(opts.seed, "cohort-shop", i);
      const c = person(`shop${i}`, home, home, day, "shop");
      c.signupAt = at;
      at += int(p, 15, 40) * 60_000;
      c.signupNetwork = { kind: "work", id: `shop-${opts.seed}` };
      customers.push(c);
    }
    const template = newState(r, model, browser, customers[0] as Person);
    for (const c of customers) {
      const p = stream(opts.seed, "cohort-shop-devices", c.id);
      const phone: Browser = {
        key: `${c.id}/${model.id}/${browser}/new`,
        family: familyOf(browser, model.os),
        model,
        state: { ...template, model, extraFonts: [...template.extraFonts], langs: [...template.langs], contentBlocker: [] },
        token: "",
        tokenSerial: 0,
        users: [c],
        lastVisitDay: -1,
        pending: new Set(),
        tokenLost: false,
        usesExternal: false,
      };
      c.signupBrowser = phone.key;
      c.browsers.push(phone);
      if (computers.length && chance(p, 0.6)) c.browsers.push(makeBrowser(p, pick(p, computers), c, [c], c.id));
    }
    out.push(...customers);
  }
  return out;
}

function newToken(b: Browser, seed: number): void {
  b.tokenSerial++;
  b.token = `vt${(seed >>> 0).toString(16)}${b.key.replace(/[^a-z0-9]/gi, "")}${b.tokenSerial}`.slice(0, 120).padEnd(16, "0");
}

/** Drift that happens to a browser overnight, whether or not it is used the next day. */
function overnight(b: Browser, r: Rng): void {
  const s = b.state;
  if (s.browser !== "safari" && chance(r, 0.04)) {
    // Chromium and Firefox ship a major release every four weeks, rolled out over days.
    s.version++;
    b.pending.add("browser-update");
  }
  if (chance(r, 0.015)) {
    const next = OS_UPDATE[s.osBuild];
    if (next && next !== s.osBuild) {
      s.osBuild = next;
      if (s.browser === "safari") s.version = Number(next.split(".")[0]);
      b.pending.add("os-update");
    }
  }
  if ((b.model.os === "windows" || b.model.os === "macos") && chance(r, 0.004)) {
    s.extraFonts = [...new Set([...s.extraFonts, ...FONTS.adobe])];
    b.pending.add("font-install");
  }
  if (s.browser === "brave" && chance(r, 0.5)) {
    s.farbleSession++;
    b.pending.add("brave-restart");
  }
}

/**
 * The visits of an honest population over `opts.days` days, in time order. Deterministic in `opts.seed`; each call
 * builds its own population, so two calls with one seed yield the same visits.
 */
export function* honestTraffic(opts: PopulationOptions): Generator<HonestVisit> {
  const people = [...population(opts), ...cohorts(opts, 1_000_000)];
  const browsers = [...new Set(people.flatMap((p) => p.browsers))];
  for (const b of browsers) newToken(b, opts.seed);
  const travel = new Map<string, { from: number; to: number; locale: Locale }>();
  for (const p of people) {
    const r = stream(opts.seed, "travel", p.id);
    if (chance(r, 0.1)) {
      let from = int(r, 1, opts.days - 2);
      const days = int(r, 1, 4);
      // A cohort's sign-up is made at its place, at its hour: the residence's network that morning, the family's home
      // line, the shop (where a new phone is set up to the shop's zone). Its member is there that day, not abroad: the
      // trip leaves after it. (Before, a trip could span that day, and the sign-up came from a phone set to the trip's
      // zone on the shop's or the home line's network, which no phone does, or from abroad rather than the residence.)
      if (p.signupAt !== undefined && p.signsUpOn !== null && p.signsUpOn > from && p.signsUpOn <= from + days + 1) from = p.signsUpOn;
      travel.set(p.id, { from, to: from + days, locale: weighted(r, LOCALES) });
    }
  }
  const signedUp = new Set<string>();
  for (let day = 0; day < opts.days; day++) {
    for (const b of browsers) if (day > 0) overnight(b, stream(opts.seed, "overnight", b.key, day));
    const visits: HonestVisit[] = [];
    for (const person of people) {
      const r = stream(opts.seed, "day", person.id, day);
      const mustSignUp = person.signsUpOn === day && !signedUp.has(person.id);
      if (!mustSignUp && !chance(r, 0.75)) continue;
      const trip = travel.get(person.id);
      // The trip's first day is spent getting there: nobody signs in abroad hours after their last visit at home
      // (New York at 23:00, Mumbai at 07:00 is 1,500 km/h). They are abroad for the trip's days after it.
      if (trip && day === trip.from && !mustSignUp) continue;
      const away = trip && day > trip.from && day <= trip.to + 1 ? trip.locale : undefined;
      const sessions = mustSignUp ? 1 : int(r, 1, 3);
      // Session times in order: what happens to a browser (a cleared storage, a dock) happens in the order of visits.
      const times = Array.from({ length: sessions }, () => int(r, 7 * 3600, 23 * 3600) * 1000).sort((a, b) => a - b);
      if (mustSignUp && person.signupAt !== undefined) times[0] = person.signupAt;
      for (let k = 0; k < sessions; k++) {
        // Travellers take the phone and the laptop, not the household tablet.
        const usable = person.browsers.filter((b) => !away || (b.model.kind !== "tablet" && b.model.kind !== "computer") || b.usesExternal);
        const chosen = pick(r, usable.length ? usable : person.browsers);
        const b = (mustSignUp && person.browsers.find((x) => x.key === person.signupBrowser)) || chosen;
        const s = b.state;
        const at = opts.start + day * DAY + (times[k] as number) + k;
        // A phone takes the zone of the network it is on; a laptop keeps its home zone (set by hand, or by a company).
        const tz = away && b.model.kind !== "computer" ? away.tz : person.locale.tz;
        if (s.tz !== tz) {
          s.tz = tz;
          b.pending.add("travel");
        }
        // Safari (and every iOS browser) deletes script-written storage after seven days without a visit.
        if (ENGINE[s.browser] === "webkit" && b.lastVisitDay >= 0 && day - b.lastVisitDay >= 7) {
          newToken(b, opts.seed);
          b.tokenLost = true;
        }
        // Cleared storage: now and then anyone; often those who clear it on exit.
        if (chance(r, person.clearsStorage ? 0.3 : 0.01)) {
          newToken(b, opts.seed);
          b.tokenLost = true;
        }
        if (b.usesExternal) {
          const docked = chance(r, 0.5);
          if (docked !== s.docked) {
            s.docked = docked;
            b.pending.add("dock");
          }
        }
        const isPrivate = person.privateBrowsing && !mustSignUp && chance(r, 0.15);
        const firstVisit = b.lastVisitDay < 0;
        const weekday = day % 7 < 5;
        const session = `${day}-${k}`;
        const country = person.home.country;
        const home = { kind: "home" as const, id: person.homeNetwork ?? `home-${opts.seed}-${person.household}`, country, session };
        const cellular = { kind: "cellular" as const, id: `cell-${person.id}`, country, session };
        const computer = b.model.kind === "computer";
        let network: HonestVisit["network"];
        if (mustSignUp && person.signupNetwork) network = { ...person.signupNetwork, country, session };
        else if (away) {
          // Abroad: a phone roams on its home carrier half the time; otherwise the hotel's (or a café's) network.
          network =
            b.model.kind === "mobile" && chance(r, 0.5)
              ? cellular
              : { kind: "travel", id: `${person.id}-trip-${day}-${chance(r, 0.7) ? "hotel" : "cafe"}`, country: away.country, session };
        } else if (person.vpn === "corporate" && computer && (person.commuter ? !weekday || chance(r, 0.3) : true)) {
          // Working from home on the company's VPN: its gateway has several exits in one provider's ASN.
          network = { kind: "vpn", id: `corp-${opts.seed}-${person.household % 7}`, country, session };
        } else if (person.vpn === "consumer" && chance(r, 0.5)) {
          network = { kind: "vpn", id: "consumer-vpn", country, session };
        } else if (person.commuter && weekday && computer) {
          // Colleagues of one region share an office.
          network = {
            kind: "work",
            id: `work-${opts.seed}-${person.home.tz}-${person.household % 5}`,
            country,
            session,
          };
        } else if (b.model.kind === "mobile" && chance(r, person.commuter && weekday ? 0.7 : 0.35)) {
          network = cellular;
        } else if (computer && b.usesExternal && chance(r, 0.2)) {
          network = { kind: "work", id: `work-${person.id}`, country, session };
        } else network = home;
        const visitState = isPrivate ? { ...s, private: true, farbleSession: s.farbleSession + 7919 } : s;
        const comps = components(visitState);
        const token = isPrivate ? `pv${b.key.replace(/[^a-z0-9]/gi, "")}${day}x${k}`.slice(0, 120) : b.token;
        const truth = {
          firstSignup: false,
          firstVisit,
          private: isPrivate,
          tokenLost: !isPrivate && b.tokenLost,
          drift: isPrivate || firstVisit ? [] : [...b.pending],
        };
        const base = {
          day,
          person,
          browser: b,
          email: person.email,
          userAgent: userAgent(visitState),
          components: comps,
          token,
          timezone: s.rfp && ENGINE[s.browser] === "gecko" ? "UTC" : tz,
          network,
          groups: away ? [...groupsOf(person), "travellers" as const] : groupsOf(person),
        };
        if (mustSignUp) {
          signedUp.add(person.id);
          visits.push({ ...base, at, action: "signup", truth: { ...truth, firstSignup: true } });
          visits.push({
            ...base,
            at: at + 30_000,
            action: "access",
            user: person.user,
            truth: { ...truth, firstVisit: false, drift: [], tokenLost: false },
          });
        } else {
          const known = person.signsUpOn === null || signedUp.has(person.id);
          if (!known) continue;
          const logsIn = isPrivate || chance(r, b.model.kind === "computer" ? 0.3 : 0.15) || firstVisit;
          if (logsIn) visits.push({ ...base, at, action: "login", user: person.user, truth });
          visits.push({
            ...base,
            at: at + 20_000,
            action: "access",
            user: person.user,
            truth: logsIn ? { ...truth, firstVisit: false, drift: [], tokenLost: false } : truth,
          });
        }
        if (!isPrivate) {
          b.pending.clear();
          b.tokenLost = false;
          b.lastVisitDay = day;
        }
      }
    }
    visits.sort((a, b) => a.at - b.at);
    yield* visits;
  }
}
