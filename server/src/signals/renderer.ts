// Signal: the GPU the browser renders WebGL with (FingerprintJS's `webGlBasics`, the unmasked renderer when the
// browser gives it). A software rasteriser — SwiftShader (headless Chromium in containers), llvmpipe, softpipe or
// lavapipe (Mesa without a GPU), Mesa's offscreen renderer, Windows' Basic Render Driver, Apple's software renderer —
// is what servers and virtual machines draw with. Some honest machines have one too (a Linux desktop without GPU
// drivers, a remote desktop), so it is weak evidence alone (`software_renderer`), strong beside a forged user agent.
import type { SignalContext, SignalSet } from "./types.js";

const SOFTWARE = /SwiftShader|llvmpipe|softpipe|lavapipe|Mesa OffScreen|Microsoft Basic Render Driver|Apple Software Renderer/i;

export function rendererOf(webGlBasics: unknown): string | undefined {
  if (!webGlBasics || typeof webGlBasics !== "object") return undefined; // no WebGL: a status number, or nothing
  const w = webGlBasics as { renderer?: unknown; rendererUnmasked?: unknown };
  const r = typeof w.rendererUnmasked === "string" && w.rendererUnmasked ? w.rendererUnmasked : w.renderer;
  return typeof r === "string" && r ? r.slice(0, 256) : undefined;
}

export function renderer({ input }: SignalContext): SignalSet["renderer"] {
  const name = rendererOf(input.signals.components?.webGlBasics?.value);
  return { ...(name ? { name } : {}), software: !!name && SOFTWARE.test(name) };
}
