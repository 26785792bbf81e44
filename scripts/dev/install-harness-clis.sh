#!/usr/bin/env bash
# Installs the real Codex, OpenCode and GitHub Copilot CLIs for Baton's end-to-end tests
# (test/e2e/codex.test.ts, openCode.test.ts, copilotCli.test.ts), pinned, from the npm registry
# (their native binaries come from npm optional dependencies: nothing else is downloaded). Idempotent. Installs outside the repository
# so `npm ci` of the extension stays fast (Codex alone is ~400 MB):
#   ${BATON_HARNESS_CLIS_DIR:-$HOME/.cache/baton-harness-clis}
# Prints the binaries' paths on its last lines ("codex PATH", "opencode PATH", "copilot PATH").
set -euo pipefail

CODEX_VERSION=0.169.0
OPENCODE_VERSION=1.18.33
COPILOT_VERSION=1.0.102
CLIS_DIR="${BATON_HARNESS_CLIS_DIR:-$HOME/.cache/baton-harness-clis}"
CODEX_BIN="$CLIS_DIR/node_modules/.bin/codex"
OPENCODE_BIN="$CLIS_DIR/node_modules/.bin/opencode"
COPILOT_BIN="$CLIS_DIR/node_modules/.bin/copilot"

log() { echo "[install-harness-clis] $*" >&2; }

# Run the same from `npm test` as from a shell (scripts/dev/npm-child-env.sh says why).
# shellcheck source=scripts/dev/npm-child-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/npm-child-env.sh"
npm_child_env

# Installed = each binary runs and prints its pinned version. A throwaway HOME keeps their first
# run from writing into the user's own folders.
verify() {
  local quiet="${1:-}" ok=0 scratch
  scratch="$(mktemp -d)"
  if ! { [ -x "$CODEX_BIN" ] && HOME="$scratch" CODEX_HOME="$scratch/codex" "$CODEX_BIN" --version 2>/dev/null | grep -q "$CODEX_VERSION"; }; then
    [ -n "$quiet" ] || log "codex --version does not print $CODEX_VERSION"
    ok=1
  fi
  if ! { [ -x "$OPENCODE_BIN" ] && HOME="$scratch" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" \
    XDG_CACHE_HOME="$scratch/cache" XDG_STATE_HOME="$scratch/state" "$OPENCODE_BIN" --version 2>/dev/null | grep -q "$OPENCODE_VERSION"; }; then
    [ -n "$quiet" ] || log "opencode --version does not print $OPENCODE_VERSION"
    ok=1
  fi
  if ! { [ -x "$COPILOT_BIN" ] && HOME="$scratch" COPILOT_HOME="$scratch/copilot" COPILOT_AUTO_UPDATE=false "$COPILOT_BIN" --version 2>/dev/null | grep -q "$COPILOT_VERSION"; }; then
    [ -n "$quiet" ] || log "copilot --version does not print $COPILOT_VERSION"
    ok=1
  fi
  rm -rf "$scratch"
  return $ok
}

print_paths() {
  echo "codex $CODEX_BIN"
  echo "opencode $OPENCODE_BIN"
  echo "copilot $COPILOT_BIN"
}

if verify quiet; then
  log "codex $CODEX_VERSION, opencode $OPENCODE_VERSION and copilot $COPILOT_VERSION already installed in $CLIS_DIR"
  print_paths
  exit 0
fi

log "installing @openai/codex@$CODEX_VERSION, opencode-ai@$OPENCODE_VERSION, @opencode-ai/plugin@$OPENCODE_VERSION and @github/copilot@$COPILOT_VERSION into $CLIS_DIR"
start=$(date +%s)
mkdir -p "$CLIS_DIR"
cat >"$CLIS_DIR/package.json" <<JSON
{
  "name": "baton-harness-clis",
  "private": true,
  "description": "Codex, OpenCode and GitHub Copilot CLI for Baton's end-to-end tests (made by scripts/dev/install-harness-clis.sh)",
  "allowScripts": {
    "@openai/codex": true,
    "opencode-ai": true,
    "msgpackr-extract": false
  }
}
JSON

# The packages pick their native binary from an optional dependency (@github/copilot's loader runs
# @github/copilot-linux-x64) and opencode-ai links it in a postinstall; the allowScripts policy above lets npm 11 run those.
npm install --prefix "$CLIS_DIR" --no-audit --no-fund --save-exact \
  "@openai/codex@$CODEX_VERSION" "opencode-ai@$OPENCODE_VERSION" "@opencode-ai/plugin@$OPENCODE_VERSION" "@github/copilot@$COPILOT_VERSION" \
  >"$CLIS_DIR/install.log" 2>&1 || {
  tail -n 60 "$CLIS_DIR/install.log" >&2
  log "npm install failed; full log: $CLIS_DIR/install.log"
  exit 1
}

if ! verify; then
  tail -n 40 "$CLIS_DIR/install.log" >&2
  log "the install is incomplete; full log: $CLIS_DIR/install.log"
  exit 1
fi
log "installed in $(($(date +%s) - start)) s"
print_paths
