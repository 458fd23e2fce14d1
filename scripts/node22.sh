#!/usr/bin/env bash
# Node.js 22 from the npm registry (the `node` package), for a machine whose own Node is older (this kind of machine has
# Node 20, past its end of life). Prints the shell settings that put it first on PATH and point node-gyp at its headers
# (better-sqlite3 compiles against the Node that runs it); prints nothing when the machine's Node is 22 or later.
#   eval "$(scripts/node22.sh)" && npm ci && npm test
set -euo pipefail
MAJOR=22
if node -e "process.exit(Number(process.versions.node.split('.')[0]) >= $MAJOR ? 0 : 1)"; then exit 0; fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/tessera/node$MAJOR"
bin="$dir/node_modules/node/bin"
if ! [ -x "$bin/node" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node@$MAJOR" >&2
fi
headers=$(dirname "$(find "$dir/node_modules" -path '*/node-linux-*/include/node/common.gypi' | head -1)")
[ -x "$bin/node" ] && [ -d "$headers" ] || { echo "scripts/node22.sh: no Node $MAJOR in $dir" >&2; exit 1; }
echo "export PATH=\"$bin:\$PATH\""
# node-gyp wants the folder above include/node.
echo "export npm_config_nodedir=\"$(dirname "$(dirname "$headers")")\""
