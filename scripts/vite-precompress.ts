// Precompressed twins of a build's text assets (docs/challenge-app.md): next to each .js, .css, .svg and .map of the output, a
// .br (brotli, quality 11) and a .gz (gzip, level 9), written once at build time. The server serves the twin the
// browser accepts (@fastify/static `preCompressed`, server/src/routes/challenge-app.ts registerAssets) instead of
// the raw file, without compressing anything per request.
import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

const COMPRESSIBLE = /\.(js|css|svg|map)$/;

/** Writes `file.br` and `file.gz` beside `file`. */
export function compressFile(file: string): void {
  const body = fs.readFileSync(file);
  fs.writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  fs.writeFileSync(
    `${file}.br`,
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  );
}

export function precompress(): Plugin {
  return {
    name: "tessera-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      for (const name of Object.keys(bundle)) if (COMPRESSIBLE.test(name)) compressFile(path.join(dir, name));
    },
  };
}
