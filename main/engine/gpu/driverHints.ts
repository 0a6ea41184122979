import fs from 'node:fs';
import path from 'node:path';

/*
 * Why Dawn found no GPU, from what the system shows: on Linux Dawn reaches GPUs through Vulkan,
 * which needs the loader (libvulkan.so.1) and a driver manifest (ICD) for the GPU's vendor.
 */

const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib64', '/usr/lib', '/lib/x86_64-linux-gnu', '/lib64'];
const ICD_DIRS = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
/** Where NVIDIA's container toolkit mounts its Vulkan manifest, outside the loader's search path. */
const NVIDIA_ICD_CANDIDATES = ['/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json', '/usr/share/vulkan/icd.d/nvidia_icd.json', '/etc/vulkan/icd.d/nvidia_icd.json'];

function exists(p: string): boolean {
  try {
    fs.accessSync(p);
    return true;
  } catch {
    return false;
  }
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** The Vulkan driver manifests the loader would read. */
export function vulkanIcds(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = env.VK_DRIVER_FILES ?? env.VK_ICD_FILENAMES;
  if (explicit) return explicit.split(path.delimiter).filter((f) => f);
  const dirs = [...ICD_DIRS, ...(env.XDG_DATA_DIRS ?? '').split(':').filter((d) => d).map((d) => path.join(d, 'vulkan', 'icd.d'))];
  return [...new Set(dirs)].flatMap((d) => listDir(d).filter((f) => f.endsWith('.json')).map((f) => path.join(d, f)));
}

/** Actionable reasons for a missing hardware adapter on this platform. */
export function noAdapterHints(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[] {
  if (platform === 'darwin') return ['macOS reaches the GPU through Metal, which should always be present: update macOS, or report this with `clawloop doctor --json`.'];
  if (platform === 'win32') return ["Windows reaches the GPU through Direct3D 12: install your GPU vendor's current driver."];
  if (platform !== 'linux') return [`WebGPU through Dawn is not known to work on ${platform}; use --backend wasm.`];
  const hints: string[] = [];
  const libDirs = [...(env.LD_LIBRARY_PATH ?? '').split(':').filter((d) => d), ...LIB_DIRS];
  if (!libDirs.some((d) => exists(path.join(d, 'libvulkan.so.1')))) {
    hints.push('the Vulkan loader (libvulkan.so.1) is missing: install it (Debian/Ubuntu: sudo apt-get install libvulkan1).');
  }
  const icds = vulkanIcds(env);
  const nvidia = exists('/dev/nvidia0') || exists('/proc/driver/nvidia/version');
  if (nvidia && !icds.some((f) => /nvidia/i.test(f))) {
    const found = NVIDIA_ICD_CANDIDATES.find(exists);
    hints.push(
      found
        ? `an NVIDIA GPU is present but the Vulkan loader does not see its driver: export VK_DRIVER_FILES=${found}`
        : "an NVIDIA GPU is present but no NVIDIA Vulkan driver manifest (nvidia_icd.json) was found: install NVIDIA's driver with its Vulkan part (e.g. libnvidia-gl), then set VK_DRIVER_FILES to its nvidia_icd.json if it lives outside /usr/share/vulkan/icd.d.",
    );
  }
  const render = listDir('/dev/dri').filter((f) => f.startsWith('renderD'));
  if (!nvidia && render.length === 0) hints.push('no GPU device is visible (/dev/dri/renderD* or /dev/nvidia0): in a container, pass the GPU through (e.g. --gpus all or --device /dev/dri).');
  if (render.length > 0 && !icds.some((f) => /radeon|intel|amd|nouveau/i.test(f))) {
    hints.push("a GPU device is visible but no AMD/Intel Vulkan driver is installed: sudo apt-get install mesa-vulkan-drivers (Mesa's radv/anv).");
  }
  if (icds.length > 0 && icds.every((f) => /lvp/i.test(f))) {
    hints.push("the only Vulkan driver is Mesa's software lavapipe, which Dawn refuses; for a software GPU set CLAWLOOP_WEBGPU_ADAPTER=software (Mesa's OpenGL ES).");
  }
  if (hints.length === 0) hints.push('Vulkan looks installed but Dawn found no adapter: run `vulkaninfo --summary` (package vulkan-tools) to check the driver.');
  return hints;
}

/** Why the software adapter (Mesa llvmpipe through OpenGL ES) is missing. */
export function noSoftwareAdapterHints(): string[] {
  return [
    "Mesa's OpenGL ES software rasteriser was not found: sudo apt-get install libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri",
  ];
}
