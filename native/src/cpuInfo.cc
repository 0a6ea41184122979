#include "cpuInfo.h"

#include <cstring>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

#if defined(__x86_64__) || defined(_M_X64)
#if defined(_MSC_VER)
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif
#if defined(__linux__)
#include <sched.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

namespace clawloop {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
#if defined(_MSC_VER)
  int x[4];
  __cpuidex(x, static_cast<int>(leaf), static_cast<int>(sub));
  for (int i = 0; i < 4; i++) r[i] = static_cast<unsigned>(x[i]);
#else
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
#endif
}

// XCR0: which register states the OS saves (AVX needs bits 1-2, AVX-512 5-7, AMX 17-18).
unsigned long long xcr0() {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
#endif
}

void detectX86(CpuInfo& c) {
  c.arch = "x86_64";
  unsigned r[4];
  cpuid(0x80000000u, 0, r);
  if (r[0] >= 0x80000004u) {
    char name[49] = {0};
    for (unsigned i = 0; i < 3; i++) {
      cpuid(0x80000002u + i, 0, r);
      std::memcpy(name + 16 * i, r, 16);
    }
    c.model = name;
  }
  cpuid(1, 0, r);
  const bool osxsave = r[2] & (1u << 27);
  const unsigned long long xs = osxsave ? xcr0() : 0;
  const bool avxOs = (xs & 0x6) == 0x6, avx512Os = (xs & 0xe6) == 0xe6, amxOs = (xs & 0x60000) == 0x60000;
  c.fma = avxOs && (r[2] & (1u << 12));
  c.f16c = avxOs && (r[2] & (1u << 29));
  cpuid(7, 0, r);
  c.avx2 = avxOs && (r[1] & (1u << 5));
  c.avx512f = avx512Os && (r[1] & (1u << 16));
  c.amxBf16 = amxOs && (r[3] & (1u << 22));
  c.amxTile = amxOs && (r[3] & (1u << 24));
  unsigned r1[4];
  cpuid(7, 1, r1);
  c.avx512bf16 = avx512Os && (r1[0] & (1u << 5));
}
#endif

// Physical cores among the CPUs this process may run on (a container or taskset may allow fewer).
int physicalCores(int* logical) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  std::set<std::pair<int, int>> cores;
  *logical = CPU_COUNT(&set);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream pkg(base + "physical_package_id"), core(base + "core_id");
    int p = -1, k = -1;
    if (!(pkg >> p) || !(core >> k)) return 0;
    cores.insert({p, k});
  }
  return static_cast<int>(cores.size());
#elif defined(__APPLE__)
  int n = 0;
  size_t len = sizeof n;
  if (sysctlbyname("hw.physicalcpu", &n, &len, nullptr, 0) != 0) return 0;
  *logical = static_cast<int>(std::thread::hardware_concurrency());
  return n;
#elif defined(_WIN32)
  DWORD len = 0;
  GetLogicalProcessorInformationEx(RelationProcessorCore, nullptr, &len);
  std::string buf(len, '\0');
  auto* info = reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(&buf[0]);
  if (!GetLogicalProcessorInformationEx(RelationProcessorCore, info, &len)) return 0;
  int n = 0;
  for (DWORD off = 0; off < len; n++) off += reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(&buf[off])->Size;
  *logical = static_cast<int>(std::thread::hardware_concurrency());
  return n;
#else
  return 0;
#endif
}

CpuInfo detect() {
  CpuInfo c;
  c.logicalCpus = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(_M_X64)
  detectX86(c);
#elif defined(__aarch64__) || defined(_M_ARM64)
  c.arch = "arm64";
  c.neon = true;
#if defined(__linux__)
  c.armBf16 = getauxval(AT_HWCAP2) & (1UL << 14);  // HWCAP2_BF16
#endif
#endif
#if defined(__APPLE__)
  char name[256] = {0};
  size_t len = sizeof name - 1;
  if (sysctlbyname("machdep.cpu.brand_string", name, &len, nullptr, 0) == 0) c.model = name;
#endif
  if (c.model.empty()) {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
        c.model = line.substr(line.find(':') + 2);
        break;
      }
    }
  }
  while (!c.model.empty() && c.model.back() == ' ') c.model.pop_back();
  c.physicalCores = physicalCores(&c.logicalCpus);
  return c;
}

}  // namespace

const CpuInfo& cpuInfo() {
  static const CpuInfo info = detect();
  return info;
}

}  // namespace clawloop
