// Helpers for core tests: write small dumps line by line, to temp files
// (plain or gzip), and load them. Tests name objects by small fake addresses.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/heap/heap.h"
#include "core/loading/loader.h"

namespace heapleak::test {

struct Obj {
  std::string address;
  std::string type = "OBJECT";
  std::string klass;  // address of the class, "" for none
  std::vector<std::string> refs;
  std::string extra;  // raw `"key":value` pairs appended to the record
};

std::string object_line(const Obj& obj);
std::string class_line(const std::string& address, const std::string& name,
                       const std::vector<std::string>& refs = {});
std::string root_line(const std::string& category, const std::vector<std::string>& refs);
std::string join_lines(const std::vector<std::string>& lines);

// The compaction tests' dump: 2000 long-lived Strings, then `leaked` and
// `transient` more, packed 40 bytes apart from `base` (a compaction moves
// them all between dumps: another base).
std::string packed_strings_dump(std::uint64_t base, int leaked, int transient);

// A temporary file removed when the object dies.
class TempFile {
 public:
  explicit TempFile(const std::string& contents, bool gzip = false);
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Sets an environment variable (`value` nullptr: unsets it) for its
// scope; the previous value comes back after. For the knobs tests force:
// HEAPLEAK_READ (core/reading/read_method.h), HEAPLEAK_HUGEPAGES (core/base/huge_pages.h).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> before_;
};

std::shared_ptr<const Heap> load_text(const std::string& text, LoadOptions options = {});
ObjectIndex index_of(const Heap& heap, const std::string& address);

}  // namespace heapleak::test

// Catch prints values of failed checks; boost's result<T, Error> has no
// usable operator<< for our types, so say what it holds.
namespace Catch {
template <class T>
struct StringMaker<boost::system::result<T, heapleak::Error>> {
  static std::string convert(const boost::system::result<T, heapleak::Error>& result) {
    return result.has_value() ? "a value" : "error: " + result.error().message;
  }
};
}  // namespace Catch
