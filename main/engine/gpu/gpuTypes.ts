/*
 * The parts of the WebGPU API ClawLoop uses, typed structurally. `@webgpu/types` comes with the
 * optional `webgpu` package, so the build cannot rely on it; these few interfaces are enough.
 */

export interface GpuLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupSizeX: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxStorageBuffersPerShaderStage: number;
  readonly minStorageBufferOffsetAlignment: number;
  readonly [name: string]: number;
}

export interface GpuSubgroupMatrixConfig {
  readonly componentType: string;
  readonly resultComponentType: string;
  readonly M: number;
  readonly N: number;
  readonly K: number;
}

export interface GpuAdapterInfo {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly subgroupMinSize?: number;
  readonly subgroupMaxSize?: number;
  readonly isFallbackAdapter?: boolean;
  readonly subgroupMatrixConfigs?: readonly GpuSubgroupMatrixConfig[];
}

export interface GpuBuffer {
  readonly size: number;
  readonly usage: number;
  destroy(): void;
}

export interface GpuComputePipeline {
  getBindGroupLayout(index: number): unknown;
}

export interface GpuComputePass {
  setPipeline(p: GpuComputePipeline): void;
  setBindGroup(index: number, group: unknown): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}

export interface GpuCommandEncoder {
  beginComputePass(desc?: object): GpuComputePass;
  finish(): unknown;
}

export interface GpuBindingEntry {
  binding: number;
  resource: { buffer: GpuBuffer; offset?: number; size?: number };
}

export interface GpuDevice {
  readonly limits: GpuLimits;
  readonly features: ReadonlySet<string>;
  readonly queue: { writeBuffer(b: GpuBuffer, offset: number, data: ArrayBuffer | ArrayBufferView): void; submit(cmds: unknown[]): void };
  readonly lost: Promise<{ reason: string; message: string }>;
  createShaderModule(desc: { code: string; label?: string }): { getCompilationInfo?(): Promise<{ messages: ReadonlyArray<{ type: string; message: string; lineNum: number }> }> };
  createComputePipeline(desc: { layout: 'auto'; compute: { module: unknown; entryPoint: string }; label?: string }): GpuComputePipeline;
  createBindGroup(desc: { layout: unknown; entries: GpuBindingEntry[] }): unknown;
  createBuffer(desc: { size: number; usage: number; mappedAtCreation?: boolean }): GpuBuffer;
  createCommandEncoder(): GpuCommandEncoder;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): void;
  popErrorScope(): Promise<{ message: string } | null>;
  addEventListener?(type: 'uncapturederror', listener: (e: { error: { message: string } }) => void): void;
  destroy(): void;
}

export interface GpuAdapter {
  readonly features: ReadonlySet<string>;
  readonly limits: GpuLimits;
  readonly info: GpuAdapterInfo;
  readonly isFallbackAdapter?: boolean;
  requestDevice(desc?: { requiredFeatures?: string[]; requiredLimits?: Record<string, number> }): Promise<GpuDevice>;
}

export interface Gpu {
  requestAdapter(opts?: { powerPreference?: 'high-performance' | 'low-power'; featureLevel?: 'core' | 'compatibility' }): Promise<GpuAdapter | null>;
}

/** Buffer usage bits (WebGPU's GPUBufferUsage). */
export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;
