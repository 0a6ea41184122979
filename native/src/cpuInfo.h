// What the CPU is and can do: its model name, the vector and matrix extensions ClawLoop's kernels
// (and its peers') use, and the number of physical cores this process may run on.
#pragma once
#include <string>

namespace clawloop {

struct CpuInfo {
  std::string model;
  std::string arch;  // x86_64, arm64, ...
  bool avx2 = false, fma = false, f16c = false, avx512f = false, avx512bf16 = false, amxBf16 = false, amxTile = false;
  bool neon = false, armBf16 = false;
  int physicalCores = 0;  // 0 when unknown
  int logicalCpus = 0;    // CPUs this process may run on
};

const CpuInfo& cpuInfo();

}  // namespace clawloop
