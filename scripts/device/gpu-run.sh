#!/bin/bash
# ClawLoop GPU bundle, call 2 of 2 (scripts/device/gpu-bundle.sh copies this to .gpu/s2/run.sh).
# Send .gpu/s2, or both .gpu/s1 and .gpu/s2 in one transfer when they fit. Run from the repo root
# on the GPU machine:  bash .gpu/s2/run.sh
#
# 1. Node: joins node.p1 (from call 1: /tmp/clawloop-gpu/node.p1, or .gpu/s1/node.p1.xz if it
#    travelled or stayed) with node.p2 here, checks sha256, puts it first on PATH.
# 2. dist/ + node_modules/ (the subset benchGpu and `clawloop doctor` load, Dawn linux-x64 only):
#    extracted into the repo root unless a dist/ or node_modules/ not made by this bundle is there.
# 3. GL/Vulkan loaders (Debian debs) unpacked onto / (only where nvidia-smi exists), NVIDIA ICD env.
# 4. nvidia-smi -L, `clawloop doctor`, then the benchmark plan within a time budget.
#
# Environment knobs:
#   CLAWLOOP_GPU_BUDGET_S  seconds for doctor + benchmarks, counted from the start (default 360)
#   CLAWLOOP_GPU_PLAN      model:iters:min_seconds_left,...  (default qwen3-0.6b:2:0,qwen3-4b:1:240)
#                          a run starts only if at least min_seconds_left remain; each run is
#                          killed (with its PyTorch children) when the budget runs out
#   CLAWLOOP_GPU_BENCH_ARGS  extra args for benchGpu.js (e.g. --no-pytorch)
#   CLAWLOOP_GPU_PROFILE   seconds for `profile:gpu` before the benchmarks (default 0: none; 420
#                          for the full profile); CLAWLOOP_GPU_PROFILE_ARGS adds its arguments
#   CLAWLOOP_GPU_SKIP_GL=1 / CLAWLOOP_GPU_FORCE_GL=1   skip / force unpacking the debs onto /
#   CLAWLOOP_GPU_UNPACK_ONLY=1   stop after unpacking (local checks)
# Writes $OUT/gpu.log, $OUT/doctor.log, $OUT/gpu.json (first model), $OUT/gpu-<model>.json (others),
# and with CLAWLOOP_GPU_PROFILE $OUT/profile.log and $OUT/profile.json.
set -u
T0=$(date +%s)
S2=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$S2/../.." && pwd)
cd "$ROOT" || exit 1
D=/tmp/clawloop-gpu
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$D/bin" "$OUT"
BUDGET=${CLAWLOOP_GPU_BUDGET_S:-360}
PLAN=${CLAWLOOP_GPU_PLAN:-qwen3-0.6b:2:0,qwen3-4b:1:240}
say() { echo "== $*"; }
die() { echo "RUN.SH FAILED: $*"; exit 2; }
left() { echo $((BUDGET - ($(date +%s) - T0))); }
unxz_to() {
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" > "$2"
  else python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],"wb"), 1<<20)' "$1" "$2"; fi
}
untar_xz() {
  if command -v xz >/dev/null 2>&1; then xz -dc "$1" | tar -xf - -C "$2"
  else python3 -c 'import tarfile,sys; t=tarfile.open(sys.argv[1]); t.extractall(sys.argv[2], **({"filter":"data"} if hasattr(tarfile,"data_filter") else {}))' "$1" "$2"; fi
}
deb_x() { # dpkg -x, or a Python ar+tar fallback
  if command -v dpkg >/dev/null 2>&1; then dpkg -x "$1" /; return; fi
  python3 - "$1" <<'PY'
import io, sys, tarfile
b = open(sys.argv[1], 'rb').read(); i = 8
while i < len(b):
    name = b[i:i+16].decode().strip().rstrip('/'); size = int(b[i+48:i+58]); data = b[i+60:i+60+size]
    if name.startswith('data.tar'): tarfile.open(fileobj=io.BytesIO(data)).extractall('/')
    i += 60 + size + (size & 1)
PY
}
say "run.sh $(date -u +%T) on $(hostname) ($(uname -m)), repo $ROOT, OUT=$OUT, budget ${BUDGET}s"

# --- 1. Node --------------------------------------------------------------------------------
if [ -f "$ROOT/.gpu/s1/node.p1.xz" ] && ! (cd "$D" 2>/dev/null && sha256sum -c --quiet "$ROOT/.gpu/s1/node.p1.sha256" >/dev/null 2>&1); then
  unxz_to "$ROOT/.gpu/s1/node.p1.xz" "$D/node.p1" || die "cannot decompress .gpu/s1/node.p1.xz"
fi
[ -f "$D/node.p1" ] || die "part 1 of Node is missing: neither $D/node.p1 (left by call 1: bash .gpu/s1/stage1.sh, carry .gpu/s1) nor .gpu/s1/node.p1.xz is here. The machine was probably not warm any more: run call 1 and then call 2 straight after it (within 30 s), or carry both .gpu/s1 and .gpu/s2 in one call."
unxz_to "$S2/node.p2.xz" "$D/node.p2" || die "cannot decompress node.p2.xz"
cat "$D/node.p1" "$D/node.p2" > "$D/node" && mv "$D/node" "$D/bin/node" && chmod +x "$D/bin/node"
cp "$D/bin/node" "$D/node"
(cd "$D" && sha256sum -c --quiet "$S2/node.sha256") || die "Node checksum mismatch (node.p1 from another bundle build? rerun call 1 with the current .gpu/s1)"
rm -f "$D/node"
export PATH="$D/bin:$PATH"
hash -r
[ "$(command -v node)" = "$D/bin/node" ] || die "node on PATH is $(command -v node), not the bundled one"
node --version >/dev/null 2>&1 || {
  # dawn.node needs GLIBCXX_3.4.30; node itself only 3.4.21
  node --version; die "bundled node does not start"; }
say "node $(node --version) at $(command -v node)"
if ! { ldconfig -p 2>/dev/null | awk '/libstdc\+\+\.so\.6 .*x86-64/ {print $NF}' | head -1 | xargs -r grep -qa GLIBCXX_3.4.30; }; then
  mkdir -p "$D/lib" && unxz_to "$S2/libstdc++.so.6.xz" "$D/lib/libstdc++.so.6" && export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "system libstdc++ lacks GLIBCXX_3.4.30: using the bundled one ($D/lib)"
fi

# --- 2. dist/ and node_modules/ -------------------------------------------------------------
mkdir -p "$D/js"
for d in dist node_modules; do
  if [ -e "$ROOT/$d" ] && [ ! -f "$ROOT/$d/.clawloop-gpu-bundle" ]; then
    say "keeping the $d/ already here (not from this bundle)"
  else
    rm -rf "$D/js/$d"; WANT_JS=1
  fi
done
if [ "${WANT_JS:-0}" = 1 ]; then
  untar_xz "$S2/js.tar.xz" "$D/js" || die "cannot extract js.tar.xz"
  for d in dist node_modules; do
    if [ ! -e "$ROOT/$d" ] || [ -f "$ROOT/$d/.clawloop-gpu-bundle" ]; then rm -rf "$ROOT/$d"; mv "$D/js/$d" "$ROOT/$d"; fi
  done
  say "dist/ and node_modules/ from the bundle ($(cat "$ROOT/dist/.clawloop-gpu-bundle" 2>/dev/null))"
fi
[ -f dist/scripts/bench/benchGpu.js ] || die "dist/scripts/bench/benchGpu.js missing"

# --- 3. GL / Vulkan loaders -----------------------------------------------------------------
if [ "${CLAWLOOP_GPU_SKIP_GL:-0}" != 1 ] && { command -v nvidia-smi >/dev/null 2>&1 || [ "${CLAWLOOP_GPU_FORCE_GL:-0}" = 1 ]; }; then
  for f in "$S2"/gl/*.deb; do deb_x "$f" || echo "warning: unpacking $f failed"; done
  ldconfig || true
  say "loaders unpacked: $(ldconfig -p | grep -oE 'lib(vulkan|EGL|GLESv2|GLX|OpenGL)\.so\.[0-9]+' | sort -u | tr '\n' ' ')"
else
  say "GL/Vulkan debs not unpacked (no nvidia-smi, or CLAWLOOP_GPU_SKIP_GL=1)"
fi
for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
  [ -f "$f" ] && { export VK_DRIVER_FILES="${VK_DRIVER_FILES:-$f}"; break; }
done
for f in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
  [ -f "$f" ] && { export __EGL_VENDOR_LIBRARY_FILENAMES="${__EGL_VENDOR_LIBRARY_FILENAMES:-$f}"; break; }
done
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$D/xdg}"; mkdir -p "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
say "VK_DRIVER_FILES=${VK_DRIVER_FILES:-<unset>} __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-<unset>}"
say "unpacked in $(( $(date +%s) - T0 ))s"
[ "${CLAWLOOP_GPU_UNPACK_ONLY:-0}" = 1 ] && exit 0

# --- 4. GPU, doctor, benchmarks -------------------------------------------------------------
say "nvidia-smi -L"; nvidia-smi -L 2>&1 || echo "nvidia-smi failed: no NVIDIA GPU visible"
say "python3: $(command -v python3) torch: $(timeout 60 python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1)"
say "clawloop doctor"
timeout -k 5 90 node bin/clawloop.js doctor 2>&1 | tee "$OUT/doctor.log"
rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || echo "DOCTOR FAILED (exit $rc)"
: > "$OUT/gpu.log"
status=0
PROFILE_S=${CLAWLOOP_GPU_PROFILE:-0}
if [ "$PROFILE_S" -gt 0 ]; then
  rem=$(left); [ "$PROFILE_S" -lt "$rem" ] || PROFILE_S=$rem
  say "profileGpu (limit ${PROFILE_S}s) -> $OUT/profile.json" | tee -a "$OUT/gpu.log"
  timeout -k 15 "$PROFILE_S" node dist/scripts/bench/profileGpu.js --json "$OUT/profile.json" ${CLAWLOOP_GPU_PROFILE_ARGS:-} 2>&1 | tee "$OUT/profile.log"
  rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || { say "PROFILE FAILED or timed out (exit $rc)" | tee -a "$OUT/gpu.log"; status=$rc; }
fi
first=1
IFS=',' read -ra runs <<< "$PLAN"
for r in "${runs[@]}"; do
  IFS=':' read -r model iters need <<< "$r"
  rem=$(left)
  if [ "$rem" -lt "${need:-0}" ] || [ "$rem" -lt 20 ]; then
    say "SKIPPED $model: ${rem}s left of the ${BUDGET}s budget (it needs ${need:-0}s)" | tee -a "$OUT/gpu.log"; continue
  fi
  if [ $first = 1 ]; then json="$OUT/gpu.json"; else json="$OUT/gpu-$model.json"; fi
  first=0
  say "benchGpu $model --iters $iters (limit ${rem}s) -> $json" | tee -a "$OUT/gpu.log"
  t1=$(date +%s)
  # timeout signals its whole process group: node and the PyTorch peers it started.
  timeout -k 15 "$rem" node dist/scripts/bench/benchGpu.js --models "$model" --iters "$iters" --json "$json" ${CLAWLOOP_GPU_BENCH_ARGS:-} 2>&1 | tee -a "$OUT/gpu.log"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) say "benchGpu $model: ok in $(( $(date +%s) - t1 ))s" | tee -a "$OUT/gpu.log" ;;
    124|137) say "BENCH TIMED OUT: $model after ${rem}s (no JSON; lower --iters or raise CLAWLOOP_GPU_BUDGET_S)" | tee -a "$OUT/gpu.log"; status=124 ;;
    *) say "BENCH FAILED: $model exit $rc" | tee -a "$OUT/gpu.log"; status=$rc ;;
  esac
done
say "done in $(( $(date +%s) - T0 ))s; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $status
