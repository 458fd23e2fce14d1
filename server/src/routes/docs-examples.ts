// One example per wire object of the OpenAPI document (docs/server-api.md): docs.ts attaches each to its component and to
// every operation that sends or answers it. Typed by the contract, and parsed by it in server/test/openapi.test.ts.
import type * as contract from "@tessera/sdk/contract";
import type * as z from "zod/mini";

type Contract = typeof contract;
type Examples = { [K in keyof Contract]?: Contract[K] extends z.ZodMiniType ? z.input<Contract[K]> : never };

const AT = "2026-11-22T19:43:00.000Z";
const LATER = "2026-11-22T19:45:12.000Z";
const EVALUATION = "ev_Vp2yEKQNJgtEISJzvCwERk1i";
const CHALLENGE = "ch_Bd2VbsEyKpIbP4hCdKq7vhuU";
const DEVICE = "dev_q3J9xY0aTbW8cLmN2pRsV4uZ";
const USER = { service_id: "usr_H7kP2mQ9rT4vX1zB6nC8dF0g", id: "acct_42", email: "alice@example.com" };
const LINK = `https://tessera.example.com/challenge/?challenge=${CHALLENGE}&token=eyJjIjoiY2hf…`;

const device: z.input<Contract["Device"]> = {
  id: DEVICE,
  user: "acct_42",
  status: "attached",
  type: "computer",
  info: { browser: "Chrome", browser_version: "142.0.0.0", engine: "Blink", os: "Windows", os_version: "10" },
  metadata: { label: "work laptop" },
  attached_at: AT,
  last_seen_at: LATER,
  last_ip: "90.84.23.1",
  last_location: { city: "Paris", region: "Ile-de-France", country: "France", country_code: "FR" },
  actively_connected: true,
  createdAt: AT,
  updatedAt: LATER,
};

const challenge: z.input<Contract["Challenge"]> = {
  id: CHALLENGE,
  status: "code_sent",
  type: "account_takeover",
  challenge_mode: "service_managed",
  delivery_status: "delivered",
  channels: ["email"],
  reasons: ["new_device", "new_ip"],
  actions: ["view", "send", "verify"],
  user: USER,
  evaluation: EVALUATION,
  origin_url: "https://app.example.com/login",
  email_verified: false,
  phone_verified: false,
  verify_attempts: 0,
  createdAt: AT,
  updatedAt: LATER,
};

const policyFields = {
  name: "Verify logins from Tor",
  description: "Challenge a login from a Tor exit or from a blocked IP",
  actions: ["login"],
  priority: 500,
  conditions: {
    any: [
      { check: "ip_is_tor", op: "eq" as const, value: true },
      { check: "ip", op: "in_list" as const, value: "blocked_ips" },
    ],
  },
  verdict: "challenge" as const,
  challenge: { type: "account_takeover" as const, channels: ["email" as const, "text" as const], require: "any" as const },
};

const policy: z.input<Contract["Policy"]> = {
  id: "pol_c7T2kQ9wX4mZ1bN8vR3pL6sY",
  ...policyFields,
  environment: "production",
  enabled: true,
  challenge: { ...policyFields.challenge, allow_skip: false, skip_limit: 3 },
  createdAt: AT,
  updatedAt: AT,
};

const webhookEndpoint: z.input<Contract["WebhookEndpoint"]> = {
  id: "whe_M4nB7vC1xZ9lK2jH5gF8dS3a",
  url: "https://app.example.com/hooks/tessera",
  events: ["challenge.completed", "device.detached"],
  description: "CRM sync",
  enabled: true,
  createdAt: AT,
  updatedAt: AT,
};

const delivery: z.input<Contract["WebhookDelivery"]> = {
  id: "whd_P9oI8uY7tR6eW5qA4sD3fG2h",
  event_id: "evt_Z1xC2vB3nM4lK5jH6gF7dS8a",
  event: "challenge.completed",
  status: "failed",
  attempts: 9,
  last_status_code: 500,
  last_error: "HTTP 500",
  createdAt: AT,
  updatedAt: LATER,
};

const view: z.input<Contract["ChallengeView"]> = {
  challenge,
  available_channels: [{ channel: "email", destination: "a****@example.com" }],
  required_channels: "any",
  allow_skip: false,
  attempts_left: 5,
  verified_channels: [],
  resend_available_at: "2026-11-22T19:45:42.000Z",
  code_expires_at: "2026-11-22T19:55:12.000Z",
  expires_at: "2026-11-22T20:43:00.000Z",
  success_url: "https://app.example.com/login/return",
  back_url: "https://app.example.com/login",
  project: { name: "Acme Notes", logo_url: "https://app.example.com/logo.png", color: "#0f766e" },
};

const evaluation: z.input<Contract["Evaluation"]> = {
  id: EVALUATION,
  action: "login",
  verdict: "challenge",
  reasons: ["new_device", "new_ip"],
  redirect: LINK,
  user: USER,
  challenge: { id: CHALLENGE, status: "created", type: "account_takeover" },
  policy: { id: "pol_login_unfamiliar", name: "Verify unfamiliar logins", action: { type: "challenge" } },
  fingerprint: { id: "fp_K8jH7gF6dS5aP4oI3uY2tR1e", confidence: 1 },
  geolocation: {
    city: "Paris",
    region: "Île-de-France",
    country: "France",
    country_code: "FR",
    ip: "81.2.69.142",
    security: { vpn: false, proxy: false, tor: false, hosting: false },
  },
  device: DEVICE,
  risks: [{ id: "rsk_1", definition: "ato", name: "ato", severity: "medium", score: 45, indicators: ["new_device", "new_ip"] }],
  checks: { is_new_device: true, is_new_ip: true, ip_country: "FR", is_bot: false },
  consumed: false,
  createdAt: AT,
  updatedAt: AT,
};

const userSummary: z.input<Contract["UserSummary"]> = {
  ...USER,
  phone: "+33612345678",
  email_verified: true,
  phone_verified: false,
  createdAt: "2026-10-02T08:15:00.000Z",
  updatedAt: AT,
};
const verdicts = { allow: 1204, challenge: 37, deny: 12, restrict: 3 };
const session: z.input<Contract["ConsoleSession"]> = {
  operator: { id: "op_T6yU5iO4pA3sD2fG1hJ0kL9z", email: "security@example.com" },
  projects: [
    {
      id: "prj_R2tY6uI8oP0aS4dF7gH1jK3l",
      name: "Acme Notes",
      role: "owner",
      environments: [
        { id: "env_D4fG6hJ8kL0zX2cV5bN7mQ9w", name: "development" },
        { id: "env_P1oI3uY5tR7eW9qA2sD4fG6h", name: "production" },
      ],
    },
  ],
};
const settings: z.input<Contract["EnvironmentSettings"]> = {
  environment: { id: "env_P1oI3uY5tR7eW9qA2sD4fG6h", name: "production" },
  project: { id: "prj_R2tY6uI8oP0aS4dF7gH1jK3l", name: "Acme Notes" },
  client_id: "pk_live_3kD8fJ2mQ7rT1vX4zB6n",
  allowed_origins: ["https://app.example.com"],
  logo_url: "https://app.example.com/logo.png",
  color: "#0f766e",
  default_device_limit: 3,
  admin_email: "security@example.com",
  identity_verification: "required",
  sms_countries: ["FR", "BE"],
};
const key: z.input<Contract["ApiKeySummary"]> = {
  id: "key_W3eR5tY7uI9oP1aS3dF5gH7j",
  prefix: "sk_live_7QmX",
  environment: "production",
  label: "billing backend",
  createdAt: AT,
  last_used_at: LATER,
};

export const EXAMPLES: Examples = {
  ErrorBody: { error: { status: 400, code: "invalid_request", message: "Invalid email: email must be one address", param: "email" } },
  Health: { status: "ok", store: "sqlite" },
  ClientEvaluateRequest: {
    client_id: "pk_test_9fK2mQ7rT1vX4zB8nC6d",
    user: "acct_42",
    email: "alice@example.com",
    signals: {
      components: { timezone: { value: "Europe/Paris" }, platform: { value: "Win32" }, hardwareConcurrency: { value: 8 } },
      visitor_token: "6f1c2a9e4b7d3f0a8c5e1b2d9f4a7c3e",
      automation: { webdriver: false },
      url: "https://app.example.com/login",
      timezone: "Europe/Paris",
      consent: "full",
    },
  },
  ClientEvaluateResponse: { evaluation_id: EVALUATION, redirect: LINK },
  ClientDeviceRequest: {
    client_id: "pk_test_9fK2mQ7rT1vX4zB8nC6d",
    user: "acct_42",
    user_token: "Zq3xW7m0Yt1RkA9vB2nC5dF8gH4jK6lP0oI3uY7tR2e",
    signals: { components: { platform: { value: "Win32" } }, visitor_token: "6f1c2a9e4b7d3f0a8c5e1b2d9f4a7c3e" },
  },
  ClientDeviceResponse: { device: DEVICE, status: "attached" },
  FingerprintResponse: { fingerprint_id: "fp_K8jH7gF6dS5aP4oI3uY2tR1e", confidence: 0.94 },
  HashResponse: ["3b8f1c0e9a7d4b2f", "3b8f1c0e9a7d4b2f"],
  IdentifyResponse: { identification_id: "idn_L5kJ4hG3fD2sA1pO9iU8yT7r" },
  ClientHeartbeatRequest: { client_id: "pk_test_9fK2mQ7rT1vX4zB8nC6d", visitor_token: "6f1c2a9e4b7d3f0a8c5e1b2d9f4a7c3e" },
  ClientHeartbeatResponse: { logout: false },
  Evaluation: evaluation,
  ServerEvaluateRequest: {
    user: "acct_42",
    ip: "81.2.69.142",
    user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
    evaluation: EVALUATION,
    content: { title: "Great offer", text: "Write to me at deals@example.net", links: ["https://example.net/deal"] },
    metadata: { listing: "lst_77" },
  },
  Challenge: challenge,
  ChallengePage: { data: [challenge], total: 1, page: 1, limit: 20 },
  ChallengeView: view,
  ChallengeDevices: {
    data: [
      { ...device, current: false },
      { ...device, id: "dev_z8Y7x6W5v4U3t2S1r0Q9p8O7", current: true },
    ],
  },
  SendCodeRequest: { channel: "email", language: "fr" },
  VerifyCodeRequest: { code: "493021" },
  CompleteChallengeRequest: { outcome: "complete" },
  KickDeviceRequest: { device: DEVICE },
  OverrideChallengeRequest: { reason: "Verified by phone by support (ticket 4521)" },
  SignupChoiceResponse: { redirect: "https://app.example.com/signup" },
  DeliveryReceipt: { status: "delivered" },
  DevOutbox: {
    data: [
      {
        id: "msg_A1s2D3f4G5h6J7k8L9z0X1c2",
        challenge_id: CHALLENGE,
        channel: "email",
        recipient: "alice@example.com",
        subject: "Your Acme Notes verification code",
        body: "We noticed a sign-in to your Acme Notes account …\n\n493021\n\nIt expires in 10 minutes.",
        code: "493021",
        createdAt: AT,
        created_at: AT,
      },
    ],
  },
  Device: device,
  DeviceList: [device],
  DeviceAttachRequest: { user: "acct_42" },
  DeviceMetadataRequest: { metadata: { label: "work laptop", managed: true } },
  UserUpdateRequest: {
    email: "alice@example.com",
    phone: "+33612345678",
    metadata: { plan: "pro" },
    groups: [{ id: "org_17", name: "Acme Inc." }, "beta"],
  },
  UserErasure: { user: "acct_42", deleted: { evaluations: 37, devices: 2, fingerprints: 2, challenges: 1, access_records: 12 } },
  PolicyCreateRequest: { ...policyFields, environment: "production" },
  PolicyPatchRequest: { enabled: false },
  Policy: policy,
  PolicyPage: { data: [policy], total: 12, page: 1, limit: 20 },
  PolicyDeleted: { id: "pol_c7T2kQ9wX4mZ1bN8vR3pL6sY", deleted: true },
  ListAddRequest: { values: ["198.51.100.7", "203.0.113.0"], comment: "abuse report 2026-11", ttl: 2_592_000 },
  ListAddResponse: { added: 2, updated: 0, total: 14 },
  ListRemoveRequest: { values: ["198.51.100.7"] },
  ListRemoveResponse: { removed: 1, total: 13 },
  ListEntries: {
    id: "blocked_ips",
    data: [{ value: "203.0.113.0", comment: "abuse report 2026-11", expires_at: "2026-12-22T19:43:00.000Z", createdAt: AT }],
    total: 13,
    page: 1,
    limit: 20,
  },
  WebhookEndpointCreateRequest: {
    url: "https://app.example.com/hooks/tessera",
    events: ["challenge.completed", "device.detached"],
    description: "CRM sync",
  },
  WebhookEndpoint: { ...webhookEndpoint, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  WebhookEndpointList: { data: [webhookEndpoint] },
  WebhookDelivery: delivery,
  WebhookDeliveryPage: { data: [delivery], total: 1, page: 1, limit: 20 },
  AccessHistoryPage: {
    docs: [{ id: "acc_Q1w2E3r4T5y6U7i8O9p0A1s2", device: DEVICE, user: "acct_42", confidence: 1, createdAt: AT, updatedAt: AT }],
    totalDocs: 1,
    limit: 10,
    totalPages: 1,
    page: 1,
    pagingCounter: 1,
    hasPrevPage: false,
    hasNextPage: false,
    prevPage: null,
    nextPage: null,
  },
  IdentificationCompleteRequest: { account: "acct_42" },
  IdentificationCompleteResponse: {
    access: "acc_Q1w2E3r4T5y6U7i8O9p0A1s2",
    device: DEVICE,
    new_device: false,
    metadata_fields: { plan: ["pro"] },
  },
  LegacyDeviceMetadataRequest: { metadata_fields: { plan: ["pro"] } },
  LegacySuccess: { success: true },
  EvaluationPage: { data: [evaluation], next_cursor: "MTc2Mzg0MDU4MDAwMDpldl9WcDJ5RUtRTkpndEVJU0p6dkN3RVJrMWk" },
  UserSearchResult: { data: [userSummary] },
  UserDetail: {
    ...userSummary,
    metadata: { plan: "pro" },
    groups: [{ id: "org_17", name: "Acme Inc." }, { id: "beta" }],
    devices: [device],
    evaluations: [evaluation],
    challenges: [challenge],
    lists: [{ list: "vip_users", value: "acct_42", check: "user_id" }],
  },
  EvaluationStats: {
    from: "2026-11-15T00:00:00.000Z",
    to: "2026-11-22T00:00:00.000Z",
    interval: "day",
    total: 1256,
    verdicts,
    buckets: [{ start: "2026-11-21T00:00:00.000Z", total: 1256, verdicts }],
    actions: [{ action: "login", total: 1256, verdicts }],
    top_reasons: [{ reason: "new_device", count: 41 }],
    challenges: { total: 37, statuses: { completed: 31, failed: 2, created: 4 }, types: { account_takeover: 37 } },
  },
  BacktestRequest: { policy: { ...policyFields, enabled: true }, from: "2026-11-15T00:00:00.000Z", to: "2026-11-22T00:00:00.000Z" },
  BacktestResult: {
    from: "2026-11-15T00:00:00.000Z",
    to: "2026-11-22T00:00:00.000Z",
    evaluated: 1256,
    matched: 14,
    changed: 9,
    differs_from_stored: 0,
    transitions: [{ from: "allow", to: "challenge", count: 9 }],
    examples: [
      {
        evaluation: EVALUATION,
        createdAt: AT,
        action: "login",
        user: "acct_42",
        stored: "allow",
        current: "allow",
        draft: "challenge",
        reasons: ["ip_is_tor"],
      },
    ],
    truncated: false,
    partial: false,
  },
  AuditLogPage: {
    data: [
      {
        id: "aud_Z1x2C3v4B5n6M7q8W9e0R1t2",
        actor: { type: "operator", id: "op_T6yU5iO4pA3sD2fG1hJ0kL9z", label: "security@example.com" },
        action: "policy.update",
        environment: "production",
        target: { type: "policy", id: "pol_c7T2kQ9wX4mZ1bN8vR3pL6sY" },
        before: { enabled: true },
        after: { enabled: false },
        status: 200,
        ip: "203.0.113.10",
        createdAt: AT,
      },
    ],
    next_cursor: null,
  },
  ConsoleSession: session,
  ConsoleSignOut: { signed_out: true },
  SignInRequest: { email: "security@example.com", password: "correct horse battery staple" },
  LinkSignInRequest: { token: "b1H9kQ2xV7mT4rP8wZ3nC6dF0gJ5sL1a", password: "correct horse battery staple" },
  EnvironmentSettings: settings,
  EnvironmentSettingsPatch: { color: "#0f766e", identity_verification: "required", sms_countries: ["FR", "BE"] },
  ApiKeySummary: { ...key, secret: "sk_live_7QmXcR2vT9yB4nM8kJ3hG6fD1sA5pL0o" },
  ApiKeyList: { data: [key] },
  ApiKeyCreateRequest: { label: "billing backend" },
  ListSummaries: { data: [{ id: "blocked_ips", entries: 13, updatedAt: AT }] },
  WebhookTestRequest: { event: "challenge.completed" },
};
