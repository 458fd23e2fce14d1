// Language choice (docs/challenge-app.md): ?lang= first, then the browser's languages, else English.

import { computed, signal } from "@preact/signals";
import type { Language } from "@tessera/sdk/contract";
import { ar } from "./ar.js";
import { en, type Messages } from "./en.js";
import { es } from "./es.js";
import { fr } from "./fr.js";

export const CATALOGUES: Record<Language, Messages> = { en, fr, es, ar };
/** Each language named in itself, for the language picker. */
export const NATIVE_NAMES: Record<Language, string> = { en: "English", fr: "Français", es: "Español", ar: "العربية" };

const isLanguage = (tag: string | null | undefined): tag is Language => !!tag && tag in CATALOGUES;
const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0];

export function pickLanguage(query: string | null, browser: readonly string[]): Language {
  for (const tag of [query, ...browser]) {
    const lang = tag ? primary(tag) : undefined;
    if (isLanguage(lang)) return lang;
  }
  return "en";
}

export const lang = signal<Language>(pickLanguage(new URLSearchParams(location.search).get("lang"), navigator.languages ?? []));

/** The messages of the current language; reading `t.value` in a component re-renders it on a language change. */
export const t = computed<Messages>(() => CATALOGUES[lang.value]);
