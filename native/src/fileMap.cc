#include "fileMap.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace clawloop {
namespace {

std::mutex mapsMu;
// Keyed by path and identity (size, modification time; inode on POSIX): a file rewritten in
// place under the same name gets a new map.
std::map<std::string, std::weak_ptr<FileMap>> maps;

}  // namespace

FileMap::~FileMap() {
#if defined(_WIN32)
  if (base) UnmapViewOfFile(base);
  if (mapping) CloseHandle(mapping);
  if (file) CloseHandle(file);
#else
  if (base && size) munmap(const_cast<uint8_t*>(base), size);
#endif
}

#if defined(_WIN32)
static std::shared_ptr<FileMap> mapNew(const std::string& path, std::string* key, std::string* error) {
  auto m = std::make_shared<FileMap>();
  m->path = path;
  const int wlen = MultiByteToWideChar(CP_UTF8, 0, path.c_str(), -1, nullptr, 0);
  std::wstring wpath(wlen, L'\0');
  MultiByteToWideChar(CP_UTF8, 0, path.c_str(), -1, &wpath[0], wlen);
  m->file = CreateFileW(wpath.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (m->file == INVALID_HANDLE_VALUE) {
    m->file = nullptr;
    *error = "cannot open the file (error " + std::to_string(GetLastError()) + ")";
    return nullptr;
  }
  LARGE_INTEGER size;
  FILETIME written;
  GetFileSizeEx(m->file, &size);
  GetFileTime(m->file, nullptr, nullptr, &written);
  m->size = static_cast<size_t>(size.QuadPart);
  *key = path + "|" + std::to_string(m->size) + "|" + std::to_string(written.dwHighDateTime) + ":" + std::to_string(written.dwLowDateTime);
  if (m->size == 0) return m;
  m->mapping = CreateFileMappingW(m->file, nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (m->mapping) m->base = static_cast<const uint8_t*>(MapViewOfFile(m->mapping, FILE_MAP_READ, 0, 0, 0));
  if (!m->base) {
    *error = "cannot map the file (error " + std::to_string(GetLastError()) + ")";
    return nullptr;
  }
  return m;
}
#else
static std::shared_ptr<FileMap> mapNew(const std::string& path, std::string* key, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot open the file: ") + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  fstat(fd, &st);
  auto m = std::make_shared<FileMap>();
  m->path = path;
  m->size = static_cast<size_t>(st.st_size);
  *key = path + "|" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + "|" + std::to_string(m->size) + "|" +
         std::to_string(static_cast<long long>(st.st_mtime));
  if (m->size > 0) {
    void* p = mmap(nullptr, m->size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      *error = std::string("cannot map the file: ") + std::strerror(errno);
      close(fd);
      return nullptr;
    }
    m->base = static_cast<const uint8_t*>(p);
  }
  close(fd);  // the mapping keeps the file's pages reachable
  return m;
}
#endif

std::shared_ptr<FileMap> openFileMap(const std::string& path, std::string* error) {
  std::string key;
  auto fresh = mapNew(path, &key, error);
  if (!fresh) return nullptr;
  std::lock_guard<std::mutex> lock(mapsMu);
  auto it = maps.find(key);
  if (it != maps.end()) {
    if (auto live = it->second.lock()) return live;  // `fresh` is unmapped as it goes out of scope
  }
  maps[key] = fresh;
  return fresh;
}

size_t liveFileMaps() {
  std::lock_guard<std::mutex> lock(mapsMu);
  size_t n = 0;
  for (auto it = maps.begin(); it != maps.end();) {
    if (it->second.expired()) {
      it = maps.erase(it);
    } else {
      n++;
      ++it;
    }
  }
  return n;
}

}  // namespace clawloop
