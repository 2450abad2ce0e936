// heapleak-read-floor FILE: what getting a plain dump's bytes costs, the two
// ways the loader could (core/reading/line_pipeline.cpp maps them): read(2) into a
// reused 4 MiB buffer, and mmap with each 4 MiB populated (MADV_POPULATE_READ)
// and one byte per page touched. Prints seconds and MB/s for each, best of
// three; run it on a file already in the page cache (cat it first).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr std::size_t kBlock = std::size_t{4} << 20;

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// Both return a sum of bytes seen, so that nothing is optimised away.
std::uint64_t by_read(int fd) {
  std::vector<char> buffer(kBlock);
  std::uint64_t sum = 0;
  ::lseek(fd, 0, SEEK_SET);
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got <= 0) break;
    sum += static_cast<unsigned char>(buffer[0]) + static_cast<unsigned char>(buffer[got - 1]);
  }
  return sum;
}

std::uint64_t by_map(int fd, std::size_t size) {
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return 0;
  const auto* bytes = static_cast<const unsigned char*>(map);
  std::uint64_t sum = 0;
  for (std::size_t block = 0; block < size; block += kBlock) {
    const std::size_t length = std::min(kBlock, size - block);
    ::madvise(const_cast<unsigned char*>(bytes) + block, length, MADV_POPULATE_READ);
    for (std::size_t page = block; page < block + length; page += 4096) sum += bytes[page];
  }
  ::munmap(map, size);
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: heapleak-read-floor FILE (plain)\n");
    return 2;
  }
  const int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    std::perror(argv[1]);
    return 3;
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  double best_read = 1e9, best_map = 1e9;
  std::uint64_t sums = 0;
  for (int run = 0; run < 3; ++run) {
    auto started = std::chrono::steady_clock::now();
    sums += by_read(fd);
    best_read = std::min(best_read, seconds_since(started));
    started = std::chrono::steady_clock::now();
    sums += by_map(fd, size);
    best_map = std::min(best_map, seconds_since(started));
  }
  std::printf("read(2) into 4 MiB: %.3f s, %.0f MB/s\n", best_read, size / 1e6 / best_read);
  std::printf("mmap + populate:    %.3f s, %.0f MB/s  (checksum %llu)\n", best_map,
              size / 1e6 / best_map, static_cast<unsigned long long>(sums % 1000));
  ::close(fd);
  return 0;
}
