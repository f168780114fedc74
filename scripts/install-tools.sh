#!/usr/bin/env bash
# Installs, when missing, every binary the tests need on a fresh Debian machine
# with Go, apt and npm:
#   redis-server, redis-cli      from apt (package redis-server)
#   dot                          from apt (package graphviz; checks `xgr ostc graph` output)
#   chromium                     from apt (package chromium; the console's browser tests)
#   systemd-analyze              from apt (package systemd; checks deploy/systemd/xgr.service)
#   anvil                        npm @foundry-rs/anvil-linux-amd64 (pinned) into .tools/
#   solc (solc-js)               npm solc (pinned) into .tools/
#   ethers (module, no binary)   npm ethers (pinned) into .tools/npm/node_modules; the
#                                rpc/permit tests sign permits with it under node
# Idempotent and quiet when everything is present.
set -euo pipefail

ANVIL_VERSION=1.7.1
SOLC_VERSION=0.8.30
ETHERS_VERSION=6.17.0

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
mkdir -p "$tools/bin"

say() { printf 'tools: %s\n' "$*" >&2; }

apt_pkgs=()
command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || apt_pkgs+=(redis-server)
command -v dot >/dev/null 2>&1 || apt_pkgs+=(graphviz)
command -v chromium >/dev/null 2>&1 || apt_pkgs+=(chromium)
command -v systemd-analyze >/dev/null 2>&1 || apt_pkgs+=(systemd)
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  say "installing ${apt_pkgs[*]} from apt"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null
fi

# The npm tools live in .tools/npm with a generated package.json that pins every version.
have_version() { # have_version NAME VERSION
  local manifest="$tools/npm/node_modules/$1/package.json"
  [ -f "$manifest" ] && grep -q "\"version\": *\"$2\"" "$manifest"
}
if ! have_version @foundry-rs/anvil-linux-amd64 "$ANVIL_VERSION" || ! have_version solc "$SOLC_VERSION" ||
  ! have_version ethers "$ETHERS_VERSION"; then
  say "installing @foundry-rs/anvil-linux-amd64@$ANVIL_VERSION, solc@$SOLC_VERSION and ethers@$ETHERS_VERSION from npm into .tools/npm"
  mkdir -p "$tools/npm"
  cat >"$tools/npm/package.json" <<JSON
{
  "name": "xgr-tools",
  "private": true,
  "dependencies": {
    "@foundry-rs/anvil-linux-amd64": "$ANVIL_VERSION",
    "solc": "$SOLC_VERSION",
    "ethers": "$ETHERS_VERSION"
  }
}
JSON
  npm install --silent --no-audit --no-fund --prefix "$tools/npm" >/dev/null
fi

anvil_bin="$tools/npm/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
chmod +x "$anvil_bin"
ln -sf "$anvil_bin" "$tools/bin/anvil"
ln -sf "$tools/npm/node_modules/solc/solc.js" "$tools/bin/solcjs"
chmod +x "$tools/npm/node_modules/solc/solc.js"
