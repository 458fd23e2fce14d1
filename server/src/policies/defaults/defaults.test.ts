// The default policies as data (policies/defaults/<key>.ts): each tree is printed beside its description for review
// (and kept in policies/defaults/rendered/<key>.txt, so a change to a rule shows in its diff as the reader reads it), and
// each rule's digest is the one it shipped with: an environment seeded by an earlier release is upgraded by digest
// (PoliciesRepo.upgradeDefaults), so a default whose rule did not change must keep its digest byte for byte.
import { type Comparison, type Condition, Policy } from "@tessera/sdk/contract";
import { describe, expect, it } from "vitest";
import { ruleOf } from "../../store/policies.js";
import { policyDigest } from "../../store/policy-digest.js";
import { DEFAULT_POLICIES, defaultPolicies } from "../defaults.js";
import { labelOf } from "./rules.js";

/**
 * The digests of the defaults this release ships (device limit 3, the default). A rule changed on purpose gets a new
 * digest here, and environments whose copy of the previous one nobody edited receive it at their next start; every
 * other digest stays byte for byte. Changed since the defaults became one file each: challenge-ato (a copy of the
 * account's own browser on a new token through an anonymiser or a new datacenter; then a stranger's language there, a
 * computer's new zone in the account's country whatever its clock, and the account's components through its own VPN
 * provider let in; then, in the account's country, a zone of no part of it with a language it never had, where no
 * distance is measured); challenge-fingerprint-churn (a farm's
 * noisy siblings on any address; then through a provider's ASN too), challenge-repeat-trial (one device's sign-ups across its networks; the fourth account
 * on one token, the third only when storage was cleared between them; a phone model's components at one address
 * only with a reused token) and challenge-account-cycling (a known account amid churn only on a network new to it; a known account then an
 * unconfirmed one from one host; a browser three accounts used, its second unconfirmed one of the day; a Chromium on a
 * server's clock, UTC, new to the account or naming one never met; a never-seen browser whose build logged in there that
 * day with another audio output or canvas; the counts of a network or a provider only for an account never let in
 * there; ten accounts named on one address, challenged where strangers share it; five accounts on one browser only for an
 * account it was never let in on, not a household's shared computer) and deny-credential-stuffing (the
 * same: not for an account let in from that network or provider; then only from a datacenter:
 * docs/decisions/stuffing-deny-on-rented-hosts.md): docs/detection.md, "Sign-up farms".
 */
const SHIPPED: Record<string, string> = {
  "deny-bots": "GnJpSlOKGFm_EwKh2URS2kWkhfi6MYxNF4R_-1hEJuw",
  "deny-credential-stuffing": "KtLgIuYdpFafX7fsOwp1JS9EcQ8TMk-cGsoZ-4dg4xM",
  "challenge-account-cycling": "xzfMe4CVsoK0xO4grmEDuyZA4BuIT4cIM6ZSkEPMAxY",
  "challenge-fingerprint-churn": "arbuM_eeOQDOisyhwQZ8CBqMwH_5tzXnWLcZKr1EL40",
  "challenge-tor": "F_zdnxE4YbaF7HKjyRCfaD0GVYDWtUVfWqpGTaAQDc0",
  "deny-fake-accounts": "2V3RdIk7gq2-sN72sKV0vGJufdapS-9lPR26pNS-7bw",
  "deny-multi-accounting": "SL55y1myxBViCQe6QerApJNKIwDoXx6O4Rbektr1OkI",
  "deny-content-abuse": "8e9j17b8g0MNc9WFZwtE_1vrpR61ZB09_7B_HuWhSbk",
  "challenge-bots": "RL-xFwyffa_sUCgjeiV8aX3AxFO9PEGtkjrrLxizz7s",
  "challenge-ato": "VY7uwMIAWiiddiwM_GMiuiT1-E9ZUuNTrLRy6hnZnTU",
  "challenge-account-sharing": "RTeIjq4xHnRwxsTghbPVP9Uk6IpPSCbfsstrap-yKJg",
  "challenge-repeat-trial": "_EA82eDBPgo6Y_-MvmeTYHb-I3YJIXPMKxumhat2_io",
  "restrict-disposable-email": "lq5m8_wz31E-wzHWbtY65jGBVVCpn4quaJUC6A1M6BE",
  "restrict-suspicious-content": "8GSCs2P5ub1faR7kShnL7DnC9SbNmcBDAmp5H3kubXg",
};

/** The one default that depends on the project's device limit, as shipped for other limits. */
const SHIPPED_SHARING: Record<number, string> = {
  1: "OMmUqJWF9KSV6wmLCt_Ajvv9v7J7LFWOTDZ9pKnDbBU",
  5: "bjKCcqUiwi6EHCQSkMJbsJlqyqBPYnkI31ILmi1uCKQ",
};

const OPS: Record<Comparison["op"], string> = {
  eq: "=",
  ne: "≠",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  in: "in",
  not_in: "not in",
  in_list: "in list",
  not_in_list: "not in list",
  exists: "exists",
};

function comparison(c: Comparison): string {
  if (c.op === "eq" && c.value === true) return c.check;
  if (c.op === "eq" && c.value === false) return `not ${c.check}`;
  if (c.op === "exists") return `${c.check} ${c.value === false ? "unknown" : "known"}`;
  const value = Array.isArray(c.value) ? `[${c.value.join(", ")}]` : JSON.stringify(c.value);
  return `${c.check} ${OPS[c.op]} ${value}`;
}

/** The tree, one node a line, indented; a named part shows its name. */
function renderTree(c: Condition, depth = 1): string[] {
  const pad = "  ".repeat(depth);
  const label = labelOf(c);
  const head = (word: string) => `${pad}${word}${label ? `  — ${label}` : ""}`;
  if ("all" in c) return [head("all of"), ...c.all.flatMap((x) => renderTree(x, depth + 1))];
  if ("any" in c) return [head("any of"), ...c.any.flatMap((x) => renderTree(x, depth + 1))];
  if ("not" in c) return [head("none of"), ...renderTree(c.not, depth + 1)];
  return [`${pad}${comparison(c)}${label ? `  — ${label}` : ""}`];
}

function wrap(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

function render(key: string, deviceLimit = 3): string {
  const p = defaultPolicies(deviceLimit).find((d) => d.key === key)?.policy;
  if (!p) throw new Error(`No default ${key}`);
  const challenge = p.challenge ? ` (${p.challenge.type} by ${p.challenge.channels.join(", ")})` : "";
  return [
    `${key}: ${p.name}`,
    `  ${p.actions.length ? p.actions.join(", ") : "every action"} → ${p.verdict}${challenge}, priority ${p.priority}`,
    "",
    ...wrap(p.description ?? "", 110, "  "),
    "",
    ...renderTree(p.conditions),
    "",
  ].join("\n");
}

describe("the default policies", () => {
  it.each(DEFAULT_POLICIES.map((d) => d.key))("%s: its tree beside its description", async (key) => {
    const text = render(key);
    console.log(text);
    await expect(text).toMatchFileSnapshot(`./rendered/${key}.txt`);
  });

  it("keep the digests they shipped with, byte for byte", () => {
    const digests = Object.fromEntries(defaultPolicies().map((d) => [d.key, policyDigest(ruleOf(d.policy))]));
    expect(digests).toEqual(SHIPPED);
    for (const [limit, digest] of Object.entries(SHIPPED_SHARING)) {
      const sharing = defaultPolicies(Number(limit)).find((d) => d.key === "challenge-account-sharing");
      expect(sharing && policyDigest(ruleOf(sharing.policy)), `device limit ${limit}`).toBe(digest);
    }
  });

  // The contract bounds a policy's description (sdk/src/contract/policy.ts): a default over it is seeded, then fails
  // the answer of GET /v3/policies (a 500).
  it("keep their descriptions within the contract's bound", () => {
    for (const d of defaultPolicies())
      expect(Policy.shape.description.safeParse(d.policy.description).success, `${d.key}: ${d.policy.description?.length}`).toBe(true);
  });

  it("keep their keys unique, and their seeding order", () => {
    const keys = DEFAULT_POLICIES.map((d) => d.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(Object.keys(SHIPPED));
  });
});
