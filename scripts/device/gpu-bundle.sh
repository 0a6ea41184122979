#!/bin/bash
# Builds a bundle that runs `npm run bench:gpu`'s and `profile:gpu`'s scripts (and `clawloop doctor`) on an x86-64 Linux
# GPU machine with no Node, no network and a size limit on what can be sent to it: the Node binary
# (stripped, xz, split in two), the JS build, the node_modules files the benchmark loads
# (gpu-node-modules.txt, found by tracing a run; Dawn for linux-x64 only) and the Debian GL/Vulkan
# loaders an NVIDIA container lacks. Two halves, each about 13 MB: .gpu/s1 and .gpu/s2 (add
# `/.gpu/` to .git/info/exclude). Send both and run `bash .gpu/s2/run.sh` from the repo root there;
# or, where one transfer cannot hold both, `bash .gpu/s1/stage1.sh` with s1, then at once
# `bash .gpu/s2/run.sh` with s2 on the same machine. gpu-run.sh says what it needs and takes.
# Reads dist/, node_modules/ and /usr/bin/node; writes only under .gpu/. After `npm run build`:
#   bash scripts/device/gpu-bundle.sh          everything (Node ~1.5 min, JS ~15 s)
#   bash scripts/device/gpu-bundle.sh --js     only s2/js.tar.xz (after a new build)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
G=$ROOT/.gpu
NODE_SRC=${NODE_SRC:-/usr/bin/node}
SPLIT=${SPLIT:-51200000}   # byte offset where the Node binary is cut between s1 and s2
TMP=$(mktemp -d /tmp/clawloop-gpu-build.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
XZ=(xz --x86 --lzma2=preset=9e -T1)
mkdir -p "$G/s1" "$G/s2/gl"
cp "$HERE/gpu-stage1.sh" "$G/s1/stage1.sh"
cp "$HERE/gpu-run.sh" "$G/s2/run.sh"

build_js() {
  local s="$TMP/js"
  mkdir -p "$s"
  (cd "$ROOT" && find dist/main dist/scripts/bench dist/scripts/scriptArgs.js -type f -name '*.js' -print0 | tar --null -T - -cf - | tar -xf - -C "$s")
  (cd "$ROOT" && tar -cf - -T "$HERE/gpu-node-modules.txt") | tar -xf - -C "$s"
  mkdir -p "$s/node_modules/webgpu/dist/linux-x64"
  cp "$ROOT/node_modules/webgpu/dist/linux-x64/dawn.node" "$s/node_modules/webgpu/dist/linux-x64/dawn.node"
  strip "$s/node_modules/webgpu/dist/linux-x64/dawn.node"
  echo "bundle built $(date -u +%FT%TZ) from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo ?)" | tee "$s/dist/.clawloop-gpu-bundle" > "$s/node_modules/.clawloop-gpu-bundle"
  tar --owner=0 --group=0 --sort=name -C "$s" -cf - dist node_modules | "${XZ[@]}" > "$G/s2/js.tar.xz.tmp"
  mv "$G/s2/js.tar.xz.tmp" "$G/s2/js.tar.xz"
  echo "js.tar.xz: $(stat -c %s "$G/s2/js.tar.xz") bytes"
}

build_node() {
  cp "$NODE_SRC" "$TMP/node" && strip "$TMP/node"
  head -c "$SPLIT" "$TMP/node" > "$TMP/node.p1"
  tail -c +"$((SPLIT + 1))" "$TMP/node" > "$TMP/node.p2"
  "${XZ[@]}" -c "$TMP/node.p1" > "$G/s1/node.p1.xz" &
  "${XZ[@]}" -c "$TMP/node.p2" > "$G/s2/node.p2.xz"
  wait
  (cd "$TMP" && sha256sum node.p1) > "$G/s1/node.p1.sha256"
  (cd "$TMP" && sha256sum node.p1 node.p2 node) > "$G/s2/node.sha256"
  "$TMP/node" --version > "$G/s2/node.version"
  # Fallback C++ runtime for dawn.node (needs GLIBCXX_3.4.30), used only if the remote's is older.
  xz -9e -c "$(readlink -f /usr/lib/x86_64-linux-gnu/libstdc++.so.6)" > "$G/s2/libstdc++.so.6.xz"
}

build_gl() {
  if ! ls "$G"/s2/gl/libvulkan1_*.deb >/dev/null 2>&1; then
    mkdir -p /tmp/amd64/partial
    local o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
    apt-get "${o[@]}" update
    (cd "$G/s2/gl" && apt-get "${o[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
  fi
}

if [ "${1:-}" = "--js" ]; then build_js; else build_gl; build_node; build_js; fi
du -sb "$G"/s1 "$G"/s2 "$G"
