// Lists (docs/server-api.md): named sets of values a policy can test with in_list / not_in_list.
import * as z from "zod/mini";
import { Timestamp } from "./common.js";
import type { Verdict } from "./policy.js";

export const LIST_KINDS = ["user", "ip", "email", "email_domain", "fingerprint", "phone", "country", "device"] as const;
export const ListKind = z.enum(LIST_KINDS);
export type ListKind = z.infer<typeof ListKind>;

export const ListIdParam = z.object({
  id: z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/i, "list id must be 1-64 letters, digits, _ -")),
});

const ListValue = z.string().check(z.minLength(1), z.maxLength(320));
const ListValues = z.array(ListValue).check(z.minLength(1), z.maxLength(500));
/** One of `value` (a single value) or `values` (up to 500), as the interface's list calls take them. */
const oneOfValueOrValues = z.refine<{ value?: string; values?: string[] }>((b) => (b.value === undefined) !== (b.values === undefined), {
  message: "send either value or values",
  path: ["values"],
});

export const ListAddRequest = z
  .object({
    value: z.optional(ListValue),
    values: z.optional(ListValues),
    comment: z.optional(z.string().check(z.maxLength(500))),
    /** Seconds until the entries expire. */
    ttl: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(10 * 365 * 24 * 3600))),
  })
  .check(oneOfValueOrValues);
export type ListAddRequest = z.infer<typeof ListAddRequest>;
export const ListRemoveRequest = z.object({ value: z.optional(ListValue), values: z.optional(ListValues) }).check(oneOfValueOrValues);

/** The values a list add or remove names (`value` or `values`). */
export function listValuesOf(body: { value?: string; values?: string[] }): string[] {
  return body.values ?? (body.value === undefined ? [] : [body.value]);
}
export const ListAddResponse = z.object({ added: z.number(), updated: z.number(), total: z.number() });
/** One live value of a list. */
export const ListEntry = z.object({
  value: z.string(),
  comment: z.optional(z.string()),
  expires_at: z.optional(Timestamp),
  createdAt: Timestamp,
});
/** A page of a list's live entries, by value. */
export const ListEntries = z.object({ id: z.string(), data: z.array(ListEntry), total: z.number(), page: z.number(), limit: z.number() });
export const ListRemoveResponse = z.object({ removed: z.number(), total: z.number() });

/**
 * Test mode (docs/policies.md): in a development environment, a value on one of these lists (a user id, email, IP, …)
 * forces the verdict of every evaluation that carries it, whatever the policies say, so a customer's own end-to-end
 * tests can meet each branch; on a page view (`access`) without the challenge (server/src/policies/test-mode.ts).
 * Most restrictive first: a value on several lists gets the most restrictive verdict. Production environments refuse
 * these lists.
 */
export const TEST_LISTS = {
  test_deny: "deny",
  test_challenge_and_restrict: "challenge_and_restrict",
  test_challenge: "challenge",
  test_restrict: "restrict",
  test_allow: "allow",
} as const;
export type TestList = keyof typeof TEST_LISTS;

/**
 * The verdict a test list forces on this action: on a page view (`access`) without its challenge, so a signed-in test
 * user's pages are let in (test_challenge) or restricted (test_challenge_and_restrict). The server applies it
 * (server/src/policies/test-mode.ts); the demo site tells it.
 */
export function testVerdict(list: TestList, action: string): Verdict {
  const verdict = TEST_LISTS[list];
  if (action !== "access") return verdict;
  return verdict === "challenge" ? "allow" : verdict === "challenge_and_restrict" ? "restrict" : verdict;
}
