#include "tests/core/cache_test_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "core/images/cached_load.h"

namespace heapleak::test {
namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/" + name;
}

TempDir::TempDir() {
  char name[] = "/tmp/heapleak-cache-test-XXXXXX";
  path_ = ::mkdtemp(name);
}

TempDir::~TempDir() { fs::remove_all(path_); }

std::shared_ptr<const Heap> cached_load(const HeapCache& cache, const std::string& path,
                                        LoadMode mode) {
  LoadOptions options;
  options.mode = mode;
  CachedLoad loaded = load_heap_cached(&cache, path, options);
  REQUIRE(loaded.heap);
  if (loaded.pending) REQUIRE_FALSE(loaded.pending->write());
  return *loaded.heap;
}

std::vector<std::string> images_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(dir)) {
    names.push_back(item.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string only_image(const std::string& dir) {
  auto names = images_in(dir);
  REQUIRE(names.size() == 1);
  return dir + "/" + names[0];
}

void copy_file(const std::string& from, const std::string& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

void write_byte(const std::string& path, std::uint64_t offset, char byte) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, &byte, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
}

char read_byte(const std::string& path, std::uint64_t offset) {
  char byte = 0;
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(::pread(fd, &byte, 1, static_cast<off_t>(offset)) == 1);
  ::close(fd);
  return byte;
}

}  // namespace heapleak::test
