// Language choice: ?lang= first, then the saved choice, then the browser's languages, else English (as the
// challenge app does; Arabic is right to left).
import { computed, signal } from "@preact/signals";
import type { Language } from "@tessera/sdk/contract";
import { ar } from "./ar.js";
import { en, type Messages } from "./en.js";
import { es } from "./es.js";
import { fr } from "./fr.js";

export const CATALOGUES: Record<Language, Messages> = { en, fr, es, ar };
export const NATIVE_NAMES: Record<Language, string> = { en: "English", fr: "Français", es: "Español", ar: "العربية" };

const isLanguage = (tag: string | null | undefined): tag is Language => !!tag && tag in CATALOGUES;

export function pickLanguage(tags: readonly (string | null | undefined)[]): Language {
  for (const tag of tags) {
    const primary = tag?.toLowerCase().split(/[-_]/)[0];
    if (isLanguage(primary)) return primary;
  }
  return "en";
}

export const lang = signal<Language>(
  pickLanguage([new URLSearchParams(location.search).get("lang"), localStorage.getItem("tessera.lang"), ...(navigator.languages ?? [])]),
);

export const t = computed<Messages>(() => CATALOGUES[lang.value]);

export function setLanguage(l: Language): void {
  lang.value = l;
  localStorage.setItem("tessera.lang", l);
}
