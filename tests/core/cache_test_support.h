// Helpers shared by the cache tests (heap_cache_test.cpp,
// analyses_cache_test.cpp): a temporary cache directory, loading through the
// cache as the CLI does, and the byte surgery that damages an image.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/heap/heap.h"
#include "core/images/heap_cache.h"

namespace heapleak::test {

std::string fixture(const std::string& name);

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Loads through the cache and writes the image of a miss at once, as the CLI does.
std::shared_ptr<const Heap> cached_load(const HeapCache& cache, const std::string& path,
                                        LoadMode mode = LoadMode::kFull);

std::vector<std::string> images_in(const std::string& dir);  // every file name, sorted
std::string only_image(const std::string& dir);              // the one file there

void copy_file(const std::string& from, const std::string& to);
void write_byte(const std::string& path, std::uint64_t offset, char byte);
char read_byte(const std::string& path, std::uint64_t offset);

}  // namespace heapleak::test
