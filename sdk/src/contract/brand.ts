// Project branding (docs/challenge-app.md): which colours to paint with a project's brand colour so that text keeps WCAG AA
// contrast. Shared by the hosted challenge app and the code emails, so that both read the same.

/** The colour used when a project has none (or an invalid one). */
export const DEFAULT_BRAND = "#2f54c7";
const DARK_INK = "#111111";
const BODY_INK = "#1d2433";

export const isBrandColor = (color: string | undefined): color is string => !!color && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color);

function luminance(hex: string): number {
  const n = Number.parseInt(hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1), 16);
  const channel = (v: number) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * `brand`: the colour itself (the default for anything but #rgb or #rrggbb); `ink`: text on it, white or near-black,
 * whichever reads better; `text`: brand-coloured text on white only where it keeps 4.5:1, else the body ink.
 */
export function brandColors(color: string | undefined): { brand: string; ink: string; text: string } {
  const brand = isBrandColor(color) ? color : DEFAULT_BRAND;
  const l = luminance(brand);
  return {
    brand,
    ink: contrast(l, 1) >= contrast(l, luminance(DARK_INK)) ? "#ffffff" : DARK_INK,
    text: contrast(l, 1) >= 4.5 ? brand : BODY_INK,
  };
}

/** A logo is shown only from https or an inline image (what the challenge page's CSP allows, and mail clients load). */
export const safeLogo = (url: string | undefined): string | undefined => (url && /^(https:\/\/|data:image\/)/i.test(url) ? url : undefined);
