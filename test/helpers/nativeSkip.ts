import fs from 'node:fs';
import { addonPath, nativeWanted } from '../../main/engine/backends/nativeAddon.js';

/**
 * Why the native-kernel tests cannot run in this process, as a node:test `skip` reason, or false
 * when they can. A reason starts with "requires ": scripts/summary-reporter.mjs then lists the
 * skip in the run's summary instead of counting it as a failure. Only a missing prerequisite
 * skips: an addon that is built but fails to load fails the tests that need it.
 */
export function nativeSkipReason(): string | false {
  if (!nativeWanted()) return 'requires the native kernels; this run is pure tfjs (CLAWLOOP_NATIVE=0)';
  if (!fs.existsSync(addonPath())) {
    return 'requires the native addon, which is not built: apt-get install libopenblas-pthread-dev (Debian/Ubuntu), then npm run build:native';
  }
  return false;
}
