// heapleak-touch-floor MIB [--small-pages]: the first touch of MIB MiB of
// fresh anonymous memory, as a load's columns get it (an mmap asking for huge
// pages, then a write per 4 KiB page), and nothing else: the floor under what
// a load's peak memory costs on this machine before anything is stored. On a
// VM whose balloon hands free guest memory back to the host, that is the
// host faulting it in again, often slower than parsing the dump
// (bench/README.md, "The first touch of fresh memory"). Prints the seconds
// and GB/s; bench/run.sh times it as a floor row.
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 2 || std::atol(argv[1]) <= 0) {
    std::fprintf(stderr, "usage: heapleak-touch-floor MIB [--small-pages]\n");
    return 2;
  }
  const bool huge = !(argc > 2 && std::strcmp(argv[2], "--small-pages") == 0);
  const std::size_t bytes = static_cast<std::size_t>(std::atol(argv[1])) << 20;
  const auto started = std::chrono::steady_clock::now();
  auto* memory = static_cast<volatile char*>(
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (memory == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  if (huge) ::madvise(const_cast<char*>(memory), bytes, MADV_HUGEPAGE);
  for (std::size_t at = 0; at < bytes; at += 4096) memory[at] = 1;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("first touch of %zu MiB (%s pages): %.3f s, %.2f GB/s\n", bytes >> 20,
              huge ? "huge" : "4 KiB", seconds, static_cast<double>(bytes) / 1e9 / seconds);
  return 0;
}
