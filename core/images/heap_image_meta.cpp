#include "core/images/heap_image_meta.h"

#include <cstring>

namespace heapleak::image {
namespace {

// Encoder and Decoder share one interface, so each layout below is written
// once (a `fields` function template) and cannot be read back differently
// from how it was written.
class Encoder {
 public:
  template <class T>
  bool number(const T& v) {
    const auto raw = static_cast<std::uint64_t>(v);
    out_.append(reinterpret_cast<const char*>(&raw), sizeof raw);
    return true;
  }
  bool text(const std::string& s) {
    number(s.size());
    out_.append(s);
    return true;
  }
  template <class T>
  bool array(const std::vector<T>& v) {
    number(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    return true;
  }
  // A list of `count` items, each written by item(element).
  template <class T, class F>
  bool list(const std::vector<T>& v, F&& item) {
    number(v.size());
    for (const auto& element : v) item(element);
    return true;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Every read is bounds-checked: a damaged section fails the decode (and the
// checksum should have caught it first).
class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  template <class T>
  bool number(T& v) {
    std::uint64_t raw;
    if (!take(&raw, sizeof raw)) return false;
    v = static_cast<T>(raw);
    return true;
  }
  bool text(std::string& s) {
    std::uint64_t n;
    if (!number(n) || n > in_.size() - at_) return false;
    s.assign(in_.substr(at_, n));
    at_ += n;
    return true;
  }
  template <class T>
  bool array(std::vector<T>& v) {
    std::uint64_t n;
    if (!number(n) || n > (in_.size() - at_) / sizeof(T)) return false;
    v.resize(n);
    return take(v.data(), n * sizeof(T));
  }
  template <class T, class F>
  bool list(std::vector<T>& v, F&& item) {
    std::uint64_t n;
    // Every item takes at least one byte: a count past that is damage.
    if (!number(n) || n > in_.size() - at_) return false;
    v.resize(n);
    for (auto& element : v) {
      if (!item(element)) return false;
    }
    return true;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  bool take(void* out, std::size_t n) {
    if (n > in_.size() - at_) return false;
    if (n == 0) return true;  // `out` may be null (an empty vector's data())
    std::memcpy(out, in_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

// The meta section: key, report (path and cache fields are the reader's), roots.
template <class Io, class Key, class Report, class Roots>
bool meta_fields(Io& io, Key& key, Report& report, Roots& roots) {
  return io.text(key.path) && io.number(key.identity.device) && io.number(key.identity.inode) &&
         io.number(key.identity.mtime_ns) && io.number(key.identity.ctime_ns) &&
         io.number(key.identity.size) && io.number(key.head_tail) && io.number(key.mode) &&
         io.number(report.gzip) && io.number(report.file_bytes) && io.number(report.stream_bytes) &&
         io.number(report.lines) && io.number(report.objects) && io.number(report.root_records) &&
         io.number(report.shapes) && io.number(report.broken_lines) &&
         io.array(report.first_broken_lines) &&
         io.list(report.first_broken_reasons, [&](auto& reason) { return io.text(reason); }) &&
         io.number(report.duplicate_addresses) && io.number(report.missing_references) &&
         io.number(report.references) && io.number(report.traced) &&
         io.number(report.edges_built) && io.number(report.ends_mid_line) &&
         io.number(report.gzip_truncated) && io.number(report.long_lines) &&
         io.list(roots, [&](auto& root) { return io.text(root.name) && io.array(root.targets); });
}

template <class Io, class Index>
bool gzip_index_fields(Io& io, Index& index) {
  return io.list(index.points, [&](auto& point) {
    return io.number(point.out) && io.number(point.in) && io.number(point.bits) &&
           io.array(point.window);
  });
}

}  // namespace

std::string encode_meta(const ImageKey& key, const LoadReport& report,
                        const std::vector<RootCategory>& roots) {
  Encoder e;
  meta_fields(e, key, report, roots);
  return e.take();
}

bool decode_meta(std::string_view bytes, ImageKey& key, LoadReport& report,
                 std::vector<RootCategory>& roots) {
  Decoder d(bytes);
  if (!meta_fields(d, key, report, roots) || !d.done()) return false;
  if (report.first_broken_reasons.size() != report.first_broken_lines.size()) return false;
  report.identity = key.identity;
  return true;
}

std::string encode_gzip_index(const GzipIndex& index) {
  Encoder e;
  gzip_index_fields(e, index);
  return e.take();
}

bool decode_gzip_index(std::string_view bytes, GzipIndex& index) {
  Decoder d(bytes);
  return gzip_index_fields(d, index) && d.done();
}

}  // namespace heapleak::image
