#!/usr/bin/env bash
# Installs a real VS Code host for the extension tests, offline: code-server 4.100.3 (VS Code
# 1.100.3, the newest code-server that runs on Node 20) from the npm registry, plus Debian's
# Chromium to drive its workbench. Idempotent; meant for CI and developers (Debian 12, Node 20,
# root). Installs outside the repository so `npm ci` of the extension stays fast:
#   ${BATON_VSCODE_HOST_DIR:-$HOME/.cache/baton-vscode-host}
# Prints the path of the code-server binary on its last line.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
HOST_DIR="${BATON_VSCODE_HOST_DIR:-$HOME/.cache/baton-vscode-host}"
BIN="$HOST_DIR/node_modules/.bin/code-server"
VSCODE_DIR="$HOST_DIR/node_modules/code-server/lib/vscode"

log() { echo "[install-vscode-host] $*" >&2; }

# --- Debian packages: Chromium for the workbench, headers for code-server's native modules, rg.
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

# Installed = `code-server --version` prints the version (its first run may log a line before)
# and the install scripts really ran: npm 11 skips unapproved ones and only warns about it.
verify() {
  local quiet="${1:-}" ok=0 f
  for f in \
    "$VSCODE_DIR/node_modules.asar" \
    "$VSCODE_DIR/node_modules/node-pty/build/Release/pty.node" \
    "$VSCODE_DIR/node_modules/@vscode/ripgrep/bin/rg" \
    "$VSCODE_DIR/node_modules/@vscode/spdlog/build/Release/spdlog.node" \
    "$VSCODE_DIR/node_modules/kerberos/build/Release/kerberos.node" \
    "$VSCODE_DIR/node_modules/native-watchdog/build/Release/watchdog.node"; do
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

# --- @vscode/ripgrep's postinstall downloads rg from GitHub unless it finds this cached tarball;
# Debian's rg serves.
case "$(uname -m)" in
  x86_64) RG_TARGET=x86_64-unknown-linux-musl ;;
  aarch64) RG_TARGET=aarch64-unknown-linux-musl ;;
  *) log "unsupported architecture $(uname -m)"; exit 1 ;;
esac
RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
RG_TARBALL="$RG_CACHE/ripgrep-v13.0.0-10-$RG_TARGET.tar.gz"
if [ ! -s "$RG_TARBALL" ]; then
  log "creating $RG_TARBALL from /usr/bin/rg"
  mkdir -p "$RG_CACHE"
  stage="$(mktemp -d)"
  cp /usr/bin/rg "$stage/rg"
  tar -czf "$RG_TARBALL.tmp" -C "$stage" rg
  mv "$RG_TARBALL.tmp" "$RG_TARBALL"
  rm -rf "$stage"
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
log "installing code-server@$CODE_SERVER_VERSION into $HOST_DIR (native modules compile: ~5 minutes)"
start=$(date +%s)
rm -rf "$HOST_DIR/node_modules" "$HOST_DIR/package-lock.json"
mkdir -p "$HOST_DIR"
cat >"$HOST_DIR/package.json" <<'JSON'
{
  "name": "baton-vscode-host",
  "private": true,
  "description": "code-server for Baton's extension tests (made by scripts/install-vscode-host.sh)"
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
