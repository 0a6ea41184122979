// Read-only memory maps of weight files, shared by every thread of the process: two workers that
// load the same model map its files once, so its pages are resident (and counted) once, and they
// are the OS's page cache pages, not a private copy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace clawloop {

struct FileMap {
  std::string path;
  const uint8_t* base = nullptr;
  size_t size = 0;
#if defined(_WIN32)
  void* file = nullptr;
  void* mapping = nullptr;
#endif
  ~FileMap();
};

// Maps `path` (or returns the live map of the same file); on failure returns null and sets `error`.
std::shared_ptr<FileMap> openFileMap(const std::string& path, std::string* error);

// Number of files mapped now (process-wide).
size_t liveFileMaps();

}  // namespace clawloop
