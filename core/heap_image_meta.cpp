#include "core/heap_image_meta.h"

#include <cstring>

namespace heapleak::image {
namespace {

class Encoder {
 public:
  void u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void text(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  template <class T>
  void array(const std::vector<T>& v) {
    u64(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
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
  bool u64(std::uint64_t& v) { return take(&v, sizeof v); }
  template <class T>
  bool number(T& v) {
    std::uint64_t raw;
    if (!u64(raw)) return false;
    v = static_cast<T>(raw);
    return true;
  }
  bool text(std::string& s) {
    std::uint64_t n;
    if (!u64(n) || n > in_.size() - at_) return false;
    s.assign(in_.substr(at_, n));
    at_ += n;
    return true;
  }
  template <class T>
  bool array(std::vector<T>& v) {
    std::uint64_t n;
    if (!u64(n) || n > (in_.size() - at_) / sizeof(T)) return false;
    v.resize(n);
    return take(v.data(), n * sizeof(T));
  }
  bool done() const { return at_ == in_.size(); }

 private:
  bool take(void* out, std::size_t n) {
    if (n > in_.size() - at_) return false;
    std::memcpy(out, in_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_meta(const ImageKey& key, const LoadReport& report,
                        const std::vector<RootCategory>& roots) {
  Encoder e;
  e.text(key.path);
  e.u64(key.identity.device);
  e.u64(key.identity.inode);
  e.u64(static_cast<std::uint64_t>(key.identity.mtime_ns));
  e.u64(key.identity.size);
  e.u64(key.head_tail);
  e.u64(static_cast<std::uint64_t>(key.mode));
  // The report, field by field (path and cache fields are the reader's).
  e.u64(report.gzip);
  e.u64(report.file_bytes);
  e.u64(report.stream_bytes);
  e.u64(report.lines);
  e.u64(report.objects);
  e.u64(report.root_records);
  e.u64(report.shapes);
  e.u64(report.broken_lines);
  e.array(report.first_broken_lines);
  e.u64(report.first_broken_reasons.size());
  for (const auto& reason : report.first_broken_reasons) e.text(reason);
  e.u64(report.duplicate_addresses);
  e.u64(report.missing_references);
  e.u64(report.references);
  e.u64(report.traced);
  e.u64(report.edges_built);
  e.u64(report.ends_mid_line);
  e.u64(report.gzip_truncated);
  e.u64(report.long_lines);
  e.u64(roots.size());
  for (const auto& root : roots) {
    e.text(root.name);
    e.array(root.targets);
  }
  return e.take();
}

bool decode_meta(std::string_view bytes, ImageKey& key, LoadReport& report,
                 std::vector<RootCategory>& roots) {
  Decoder d(bytes);
  std::uint64_t mode = 0, reasons = 0, root_count = 0;
  bool ok = d.text(key.path) && d.u64(key.identity.device) && d.u64(key.identity.inode) &&
            d.number(key.identity.mtime_ns) && d.u64(key.identity.size) && d.u64(key.head_tail) &&
            d.u64(mode) && d.number(report.gzip) && d.u64(report.file_bytes) &&
            d.u64(report.stream_bytes) && d.u64(report.lines) && d.u64(report.objects) &&
            d.u64(report.root_records) && d.u64(report.shapes) && d.u64(report.broken_lines) &&
            d.array(report.first_broken_lines) && d.u64(reasons) &&
            reasons <= LoadReport::kMaxBrokenListed;
  if (!ok) return false;
  key.mode = mode == 0 ? LoadMode::kFull : LoadMode::kIdentityOnly;
  report.first_broken_reasons.resize(reasons);
  for (auto& reason : report.first_broken_reasons) {
    if (!d.text(reason)) return false;
  }
  ok = d.u64(report.duplicate_addresses) && d.u64(report.missing_references) &&
       d.u64(report.references) && d.number(report.traced) && d.number(report.edges_built) &&
       d.number(report.ends_mid_line) && d.number(report.gzip_truncated) &&
       d.u64(report.long_lines) && d.u64(root_count) && root_count <= bytes.size();
  if (!ok) return false;
  roots.resize(root_count);
  for (auto& root : roots) {
    if (!d.text(root.name) || !d.array(root.targets)) return false;
  }
  report.identity = key.identity;
  return d.done();
}

std::string encode_gzip_index(const GzipIndex& index) {
  Encoder e;
  e.u64(index.points.size());
  for (const auto& point : index.points) {
    e.u64(point.out);
    e.u64(point.in);
    e.u64(static_cast<std::uint64_t>(point.bits));
    e.array(point.window);
  }
  return e.take();
}

bool decode_gzip_index(std::string_view bytes, GzipIndex& index) {
  Decoder d(bytes);
  std::uint64_t count = 0;
  if (!d.u64(count) || count > bytes.size()) return false;
  index.points.resize(count);
  for (auto& point : index.points) {
    if (!d.u64(point.out) || !d.u64(point.in) || !d.number(point.bits) || !d.array(point.window))
      return false;
  }
  return d.done();
}

}  // namespace heapleak::image
