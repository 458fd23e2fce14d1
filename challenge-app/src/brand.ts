// Project branding (docs/challenge-app.md): the colour goes in CSS custom properties set from script, which the strict CSP
// allows (an inline style attribute in the HTML would not be). The colours themselves come from the contract's
// brandColors, as in the code emails.
import { brandColors } from "@tessera/sdk/contract";

export { safeLogo } from "@tessera/sdk/contract";

/** Applies the project colour; anything but #rgb or #rrggbb is ignored and the default kept. */
export function applyBrand(color: string | undefined, root: HTMLElement = document.documentElement): void {
  const { brand, ink, text } = brandColors(color);
  root.style.setProperty("--brand", brand);
  root.style.setProperty("--brand-ink", ink);
  root.style.setProperty("--brand-text", text);
}
