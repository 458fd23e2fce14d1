// The code messages (docs/challenges.md): why they were sent depends on the challenge type, the lifetime comes from the
// configured TTL, every language has its own words, texts end with the WebOTP line, emails carry the project's brand.
import { CHALLENGE_TYPES, LANGUAGES } from "@tessera/sdk/contract";
import { describe, expect, it } from "vitest";
import { codeEmail, codeSms, duration, type MessageInput } from "./messages.js";

const base: MessageInput = {
  language: "en",
  code: "493021",
  type: "account_takeover",
  ttlMs: 10 * 60_000,
  project: { name: "Acme Notes" },
  host: "verify.acme.example",
};

describe("code messages", () => {
  it("say why they were sent by challenge type: only a sign-in we did not recognise speaks of the password", () => {
    const texts = CHALLENGE_TYPES.map((type) => codeEmail({ ...base, type }).text);
    expect(new Set(texts.map((t) => t.split("\n")[0])).size).toBe(CHALLENGE_TYPES.length);
    for (const [i, type] of CHALLENGE_TYPES.entries()) {
      expect(texts[i]).toContain("493021");
      expect(texts[i]!.includes("someone may know your password"), type).toBe(type === "account_takeover");
    }
    expect(codeEmail({ ...base, type: "account_sharing" }).text).toMatch(/more devices than allowed/);
    expect(codeEmail({ ...base, type: "fake_account" }).text).toMatch(/If you didn't sign up to Acme Notes/);
  });

  it("give the lifetime configured, in each language's words", () => {
    expect(codeEmail({ ...base, ttlMs: 5 * 60_000 }).text).toContain("It expires in 5 minutes.");
    expect(codeEmail({ ...base, ttlMs: 60_000 }).text).toContain("It expires in 1 minute.");
    expect(codeEmail({ ...base, ttlMs: 30_000 }).text).toContain("It expires in 30 seconds.");
    expect(codeEmail({ ...base, language: "fr", ttlMs: 15 * 60_000 }).text).toContain("Il expire dans 15 minutes.");
    expect(codeEmail({ ...base, language: "es", ttlMs: 15 * 60_000 }).text).toContain("Caduca en 15 minutos.");
    expect(duration("ar", 15 * 60_000)).toBe("15 دقيقة");
    for (const text of LANGUAGES.map((language) => codeEmail({ ...base, language, ttlMs: 7 * 60_000 }).text))
      expect(text).not.toMatch(/\b10\b/);
  });

  it("are translated: every language has its own subject, reason and advice", () => {
    for (const type of CHALLENGE_TYPES) {
      const mails = LANGUAGES.map((language) => codeEmail({ ...base, language, type }));
      expect(new Set(mails.map((m) => m.subject)).size).toBe(LANGUAGES.length);
      expect(new Set(mails.map((m) => m.text)).size).toBe(LANGUAGES.length);
      for (const m of mails) expect(m.subject).toContain("Acme Notes");
    }
    const ar = codeEmail({ ...base, language: "ar" });
    expect(ar.html).toContain('lang="ar" dir="rtl"');
    // The code reads left to right inside right-to-left text.
    expect(ar.html).toMatch(/<p dir="ltr"[^>]*>493021<\/p>/);
  });

  it("texts end with the WebOTP line for the host the code is typed on", () => {
    for (const language of LANGUAGES) {
      const sms = codeSms({ ...base, language });
      expect(sms.split("\n").at(-1)).toBe("@verify.acme.example #493021");
      expect(sms.startsWith(language === "ar" ? "493021 هو" : "493021")).toBe(true);
    }
  });

  it("emails carry the project's colour and logo, with readable ink, and nothing unsafe", () => {
    const branded = codeEmail({ ...base, project: { name: "Acme <Notes>", color: "#ffd60a", logo_url: "https://acme.example/logo.png" } });
    expect(branded.html).toContain("background:#ffd60a");
    expect(branded.html).toContain('<img src="https://acme.example/logo.png" alt="Acme &#60;Notes&#62;"');
    expect(branded.html).not.toContain("<Notes>");
    const dark = codeEmail({ ...base, project: { name: "Night", color: "#101820" } });
    // No logo: the name in white on a dark colour (black on a light one).
    expect(dark.html).toContain('color:#ffffff">Night</span>');
    const unsafe = codeEmail({ ...base, project: { name: "X", color: "red;background:url(x)", logo_url: "javascript:alert(1)" } });
    expect(unsafe.html).not.toContain("javascript:");
    expect(unsafe.html).not.toContain("url(x)");
  });
});
