#!/bin/bash
# ClawLoop GPU bundle, call 1 of 2 (scripts/device/gpu-bundle.sh copies this to .gpu/s1/stage1.sh;
# send .gpu/s1). Unpacks the first part of the Node binary to /tmp/clawloop-gpu on this machine, which a warm machine keeps for the next call. Call 2
# (carry: .gpu/s2, command: bash .gpu/s2/run.sh) must follow within the machine's warm time (30 s).
set -u
S1=$(cd "$(dirname "$0")" && pwd)
D=/tmp/clawloop-gpu
mkdir -p "$D"
echo "== stage 1: $(date -u +%T) on $(hostname) ($(uname -m))"
if command -v xz >/dev/null 2>&1; then
  xz -dc "$S1/node.p1.xz" > "$D/node.p1.tmp"
else
  python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"), 1<<20)' "$S1/node.p1.xz" "$D/node.p1.tmp"
fi || { echo "STAGE 1 FAILED: cannot decompress node.p1.xz"; exit 1; }
mv "$D/node.p1.tmp" "$D/node.p1"
cp "$S1/node.p1.sha256" "$D/"
if (cd "$D" && sha256sum -c --quiet node.p1.sha256); then
  echo "stage 1: node.p1 ok ($(stat -c %s "$D/node.p1") bytes in $D)"
else
  echo "STAGE 1 FAILED: node.p1 checksum mismatch"; exit 1
fi
nvidia-smi -L 2>&1 || echo "stage 1: nvidia-smi failed (no NVIDIA GPU visible?)"
echo "STAGE 1 OK: now run call 2 at once (carry .gpu/s2): bash .gpu/s2/run.sh"
