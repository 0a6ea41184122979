#!/usr/bin/env node
// Builds native/ (ClawLoop's optional CPU kernels) with node-gyp. Runs on `npm install`.
//
//   node scripts/build-native.mjs            never fails the install: without the addon the engine
//                                            runs pure tfjs and says so at start
//   node scripts/build-native.mjs --strict   (npm run build:native) fails when the build fails
//   ... --electron [VERSION]                 builds for Electron's Node ABI (headers from electronjs.org;
//                                            VERSION defaults to the installed electron package)
//
// Needs a C++ toolchain and OpenBLAS headers (Debian/Ubuntu: apt-get install g++ make python3
// libopenblas-pthread-dev; macOS uses the Accelerate framework). CLAWLOOP_SKIP_NATIVE=1 skips the
// build; CLAWLOOP_NATIVE_MARCH replaces -march=native (e.g. -march=x86-64-v3 for portable builds).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const strict = argv.includes('--strict');
if (process.env.CLAWLOOP_SKIP_NATIVE === '1') {
  console.log('clawloop: skipping the native addon (CLAWLOOP_SKIP_NATIVE=1)');
  process.exit(0);
}

const extra = [];
const e = argv.indexOf('--electron');
if (e >= 0) {
  let version = argv[e + 1] && !argv[e + 1].startsWith('--') ? argv[e + 1] : null;
  if (!version) {
    const pkg = path.join(root, 'node_modules', 'electron', 'package.json');
    if (!fs.existsSync(pkg)) {
      console.error('clawloop: --electron needs a version (e.g. --electron 33.2.0) or an installed electron package');
      process.exit(1);
    }
    version = JSON.parse(fs.readFileSync(pkg, 'utf8')).version;
  }
  extra.push(`--target=${version}`, '--dist-url=https://electronjs.org/headers', `--arch=${process.arch}`);
  console.log(`clawloop: building the native addon for Electron ${version}`);
}

// npm gives lifecycle scripts the path of its bundled node-gyp; outside npm, use the one on PATH.
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
const res = spawnSync(cmd, [...args, 'rebuild', '--directory', path.join(root, 'native'), ...extra], {
  stdio: strict ? 'inherit' : 'pipe',
  encoding: 'utf8',
});
if (res.status === 0) {
  console.log('clawloop: built the native addon (native/build/Release/clawloop_native.node)');
  process.exit(0);
}
const output = `${res.stderr ?? ''}\n${res.stdout ?? ''}`;
const reason =
  res.error?.message ??
  output
    .split('\n')
    .filter((l) => /error/i.test(l))
    .slice(0, 3)
    .join(' | ');
console.warn(`clawloop: warning: the native addon did not build; the engine will run pure tfjs (several times slower). ${reason}`);
console.warn(
  'clawloop: install a C++ toolchain and OpenBLAS (Debian/Ubuntu: apt-get install g++ make python3 libopenblas-pthread-dev), then run: npm run build:native',
);
process.exit(strict ? 1 : 0);
