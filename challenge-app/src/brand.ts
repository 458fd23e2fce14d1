// Project branding (SPEC.md 11): the colour goes in CSS custom properties set from script, which the strict CSP
// allows (an inline style attribute in the HTML would not be). Ink colours are chosen to keep WCAG AA contrast.

const DEFAULT_BRAND = "#2f54c7";

function luminance(hex: string): number {
  const n = Number.parseInt(hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1), 16);
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/** Applies the project colour; anything but #rgb or #rrggbb is ignored and the default kept. */
export function applyBrand(color: string | undefined, root: HTMLElement = document.documentElement): void {
  const brand = color && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ? color : DEFAULT_BRAND;
  const l = luminance(brand);
  // Text on the brand colour: white or near-black, whichever reads better.
  root.style.setProperty("--brand", brand);
  root.style.setProperty("--brand-ink", contrast(l, 1) >= contrast(l, luminance("#111111")) ? "#ffffff" : "#111111");
  // Brand-coloured text on the white card only where it keeps 4.5:1, else the body ink.
  root.style.setProperty("--brand-text", contrast(l, 1) >= 4.5 ? brand : "#1d2433");
}

/** A logo is shown only from https or an inline image, as the CSP's img-src allows. */
export const safeLogo = (url: string | undefined) => (url && /^(https:\/\/|data:image\/)/i.test(url) ? url : undefined);
