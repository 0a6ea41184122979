// Runs probeGpu and prints its report as JSON (see probeGpuIsolated). Exits explicitly: a Dawn
// instance keeps the process alive.
import { probeGpu } from './probeGpu.js';

const report = await probeGpu();
process.stdout.write(JSON.stringify(report));
process.exit(0);
