// Policies (docs/policies.md): a JSON condition tree over checks, a verdict, and for challenge verdicts the challenge to run.
import * as z from "zod/mini";
import { Page, Timestamp } from "./common.js";

export const VERDICTS = ["allow", "deny", "challenge", "restrict", "challenge_and_restrict"] as const;
export const Verdict = z.enum(VERDICTS);
export type Verdict = z.infer<typeof Verdict>;

export const CHALLENGE_TYPES = ["repeat_trial", "account_sharing", "account_takeover", "multi_accounting", "fake_account"] as const;
export const ChallengeType = z.enum(CHALLENGE_TYPES);
export type ChallengeType = z.infer<typeof ChallengeType>;

export const CHANNELS = ["email", "text"] as const;
export const Channel = z.enum(CHANNELS);
export type Channel = z.infer<typeof Channel>;

export const ENVIRONMENTS = ["development", "production"] as const;
export const Environment = z.enum(ENVIRONMENTS);
export type Environment = z.infer<typeof Environment>;

export const OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "in_list", "not_in_list", "exists"] as const;
export const Op = z.enum(OPS);
export type Op = z.infer<typeof Op>;

/**
 * Values of one condition (an `in` or `not_in` list, list ids): every evaluation the policy applies to compares
 * against them, and a backtest does so for each stored evaluation; a longer set belongs in a list (`in_list`). Checked
 * with the rest of the tree (condition-check.ts), where the error can name the condition (a zod union cannot).
 */
export const CONDITION_MAX_VALUES = 1000;
export const ConditionValues = z.array(z.union([z.string(), z.number()])).check(z.meta({ maxItems: CONDITION_MAX_VALUES }));
export const ConditionValue = z.union([z.boolean(), z.number(), z.string(), ConditionValues, z.null()]);

export const Comparison = z.object({
  check: z.string().check(z.minLength(1), z.maxLength(100)),
  op: Op,
  value: z.optional(ConditionValue),
});
export type Comparison = z.infer<typeof Comparison>;

export type Condition = Comparison | { all: Condition[] } | { any: Condition[] } | { not: Condition };

// Recursive tree; depth is bounded by the policy service on write.
export const Condition: z.ZodMiniType<Condition> = z.union([
  z.strictObject({
    get all() {
      return z.array(Condition).check(z.maxLength(100));
    },
  }),
  z.strictObject({
    get any() {
      return z.array(Condition).check(z.maxLength(100));
    },
  }),
  z.strictObject({
    get not() {
      return Condition;
    },
  }),
  Comparison,
]) as z.ZodMiniType<Condition>;

export const PolicyChallenge = z.object({
  type: ChallengeType,
  channels: z._default(z.array(Channel).check(z.minLength(1)), ["email"]),
  /** "any": one verified channel is enough; "all": every listed channel must be verified. */
  require: z._default(z.enum(["any", "all"]), "any"),
  allow_skip: z._default(z.boolean(), false),
  /** How many times one user may skip before skipping is no longer offered. */
  skip_limit: z._default(z.number().check(z.int(), z.minimum(0), z.maximum(100)), 3),
  success_url: z.optional(z.url()),
  /** For account_sharing: "create my own account" sends the sharer here. */
  signup_url: z.optional(z.url()),
  device_limit: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(100))),
});
export type PolicyChallenge = z.infer<typeof PolicyChallenge>;

const policyFields = {
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  description: z.optional(z.string().check(z.maxLength(2000))),
  environment: Environment,
  enabled: z.boolean(),
  /** Actions the policy applies to; empty means every action. */
  actions: z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.maxLength(50)),
  priority: z.number().check(z.int(), z.minimum(-1_000_000), z.maximum(1_000_000)),
  conditions: Condition,
  verdict: Verdict,
  challenge: z.optional(PolicyChallenge),
};

export const Policy = z.object({
  id: z.string(),
  ...policyFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Policy = z.infer<typeof Policy>;
export const PolicyPage = Page(Policy);
export const PolicyDeleted = z.object({ id: z.string(), deleted: z.boolean() });

export const PolicyCreateRequest = z.object({
  ...policyFields,
  environment: z.optional(Environment),
  enabled: z._default(z.boolean(), true),
  actions: z._default(policyFields.actions, []),
  priority: z._default(policyFields.priority, 0),
});
export type PolicyCreateRequest = z.infer<typeof PolicyCreateRequest>;

export const PolicyPatchRequest = z.partial(z.object(policyFields));
export type PolicyPatchRequest = z.infer<typeof PolicyPatchRequest>;
