// FrameReader must never allocate what a peer announces: a Content-Length of
// 10^18 (or 200 MB under a small limit) may not turn into an allocation.
// This file replaces global operator new to record the largest request made
// while a probe is active (the replacement is harmless for other tests).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "protocol/frame_reader.h"

namespace {
std::atomic<bool> g_probing{false};
std::atomic<std::size_t> g_largest{0};

void* allocate(std::size_t size) {
  if (g_probing.load(std::memory_order_relaxed)) {
    std::size_t seen = g_largest.load();
    while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

// Every unaligned form is replaced so each new pairs with our delete (ASan
// checks the pairing); the aligned forms stay the runtime's, pairwise.
void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using heapleak::protocol::FrameReader;
using heapleak::protocol::FrameReaderOptions;

TEST_CASE("announced lengths are never allocated", "[frame_reader][alloc]") {
  const std::string body = R"({"jsonrpc":"2.0","id":1,"method":"a"})";
  const std::string next = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;

  SECTION("10^18") {
    FrameReader reader;
    g_largest = 0;
    g_probing = true;
    reader.feed("Content-Length: 1000000000000000000\r\n\r\n");
    int errors = 0, frames = 0;
    while (auto e = reader.next()) (e->index() == 0 ? frames : errors)++;
    reader.feed(next);
    while (auto e = reader.next()) (e->index() == 0 ? frames : errors)++;
    g_probing = false;
    CHECK(errors == 1);
    CHECK(frames == 1);
    CHECK(g_largest.load() < 64 * 1024);
  }

  SECTION("over a small limit, streamed in") {
    FrameReaderOptions options;
    options.max_message_bytes = 1024;
    FrameReader reader(options);
    const std::size_t announced = 50u << 20;
    const std::string chunk(64 * 1024, 'x');
    g_largest = 0;
    g_probing = true;
    reader.feed("Content-Length: " + std::to_string(announced) + "\r\n\r\n");
    while (reader.next()) {
    }
    for (std::size_t sent = 0; sent < announced; sent += chunk.size()) {
      reader.feed(chunk);
      while (reader.next()) {
      }
    }
    reader.feed(next);
    int frames = 0;
    while (auto e = reader.next()) frames += e->index() == 0;
    g_probing = false;
    CHECK(frames == 1);
    CHECK(g_largest.load() < 256 * 1024);
  }
}
