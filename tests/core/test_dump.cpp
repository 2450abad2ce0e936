#include "tests/core/test_dump.h"

#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace heapleak::test {
namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t k = 0; k < items.size(); ++k) out += (k ? ", \"" : "\"") + items[k] + "\"";
  return out + "]";
}

}  // namespace

std::string object_line(const Obj& obj) {
  std::string line = "{\"address\":\"" + obj.address + "\", \"type\":\"" + obj.type + "\"";
  if (!obj.klass.empty()) line += ", \"class\":\"" + obj.klass + "\"";
  if (!obj.refs.empty()) line += ", \"references\":" + quoted_list(obj.refs);
  if (!obj.extra.empty()) line += ", " + obj.extra;
  return line + "}";
}

std::string class_line(const std::string& address, const std::string& name,
                       const std::vector<std::string>& refs) {
  return object_line(Obj{address, "CLASS", "", refs, "\"name\":\"" + name + "\""});
}

std::string root_line(const std::string& category, const std::vector<std::string>& refs) {
  return "{\"type\":\"ROOT\", \"root\":\"" + category + "\", \"references\":" + quoted_list(refs) +
         "}";
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

std::string packed_strings_dump(std::uint64_t base, int leaked, int transient) {
  std::vector<std::string> lines;
  std::uint64_t slot = 0;
  auto add = [&](const std::string& v) {
    lines.push_back(object_line(
        {format_address(base + 0x28 * slot++), "STRING", "", {}, "\"value\":\"" + v + "\""}));
  };
  for (int k = 0; k < 2000; ++k) add("long-lived " + std::to_string(k));
  for (int k = 0; k < leaked; ++k) add("leak " + std::to_string(k));
  for (int k = 0; k < transient; ++k) add("request " + std::to_string(k));
  return join_lines(lines);
}

TempFile::TempFile(const std::string& contents, bool gzip) {
  char name[] = "/tmp/heapleak-test-XXXXXX";
  int fd = mkstemp(name);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  path_ = name;
  if (gzip) {
    gzFile out = gzopen(path_.c_str(), "wb");
    gzwrite(out, contents.data(), static_cast<unsigned>(contents.size()));
    gzclose(out);
  } else {
    std::ofstream(path_, std::ios::binary) << contents;
  }
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* before = std::getenv(name)) before_ = before;
  if (value != nullptr) {
    ::setenv(name, value, 1);
  } else {
    ::unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (before_) {
    ::setenv(name_.c_str(), before_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

std::shared_ptr<const Heap> load_text(const std::string& text, LoadOptions options) {
  TempFile file(text);
  auto heap = load_heap(file.path(), options);
  if (!heap) FAIL("load failed: " << heap.error().message);
  return *heap;
}

ObjectIndex index_of(const Heap& heap, const std::string& address) {
  auto parsed = parse_address(address);
  REQUIRE(parsed);
  auto index = heap.find(*parsed);
  REQUIRE(index);
  return *index;
}

}  // namespace heapleak::test
