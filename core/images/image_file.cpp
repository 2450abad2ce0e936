#include "core/images/image_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <system_error>
#include <thread>

#include "core/base/checksum.h"
#include "core/base/safe_write.h"

namespace heapleak::image {
namespace {

#ifdef MADV_POPULATE_READ
constexpr int kPopulateRead = MADV_POPULATE_READ;
#else
constexpr int kPopulateRead = 22;  // Linux 5.14's value, where glibc's headers lack it
#endif

std::uint64_t align(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

bool write_all(int fd, const void* data, std::uint64_t bytes, std::uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n =
        ::pwrite(fd, p, std::min<std::uint64_t>(bytes, 1u << 30), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::uint64_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

MappedFile problem(FileProblem kind, std::string why) {
  MappedFile out;
  out.problem = kind;
  out.why = std::move(why);
  return out;
}

// Checks what can be checked without the payload: magic, version, layout,
// size and the table's checksum; on success `out` holds header and table.
FileProblem check_head(const char* bytes, std::uint64_t file_bytes, const char (&magic)[8],
                       std::uint32_t version, MappedFile& out) {
  Header& header = out.header;
  if (file_bytes < sizeof header) {
    out.why = "shorter than its header";
    return FileProblem::kTruncated;
  }
  std::memcpy(&header, bytes, sizeof header);
  if (std::memcmp(header.magic, magic, sizeof header.magic) != 0) {
    out.why = "not a heapleak cache file (bad magic)";
    return FileProblem::kCorrupt;
  }
  if (header.format_version != version || header.layout != kLayout) {
    out.why = "written by format " + std::to_string(header.format_version) +
              ", this heapleak reads format " + std::to_string(version);
    return FileProblem::kVersion;
  }
  if (header.section_count > kMaxSections ||
      sizeof header + header.section_count * sizeof(Section) > file_bytes) {
    out.why = "its section table is damaged";
    return FileProblem::kCorrupt;
  }
  if (header.image_bytes > file_bytes) {
    out.why = "truncated: " + std::to_string(file_bytes) + " of " +
              std::to_string(header.image_bytes) + " bytes";
    return FileProblem::kTruncated;
  }
  if (header.image_bytes != file_bytes) {
    out.why = "its size does not match its header";
    return FileProblem::kCorrupt;
  }
  std::vector<char> head(bytes, bytes + sizeof header + header.section_count * sizeof(Section));
  const std::uint64_t expected = header.table_checksum;
  std::memset(head.data() + offsetof(Header, table_checksum), 0, sizeof expected);
  if (xxh64(head.data(), head.size()) != expected) {
    out.why = "checksum mismatch in its header";
    return FileProblem::kCorrupt;
  }
  out.table.resize(header.section_count);
  std::memcpy(out.table.data(), bytes + sizeof header, out.table.size() * sizeof(Section));
  for (const Section& s : out.table) {
    if (s.offset % kAlign != 0 || s.offset > file_bytes || s.bytes > file_bytes - s.offset) {
      out.why = "a section lies outside the file";
      return FileProblem::kCorrupt;
    }
  }
  return FileProblem::kNone;
}

}  // namespace

Written write_image_file(const std::string& path, const char (&magic)[8], std::uint32_t version,
                         std::uint32_t load_mode, const std::vector<Part>& parts) {
  Written written;
  std::vector<Section> table(parts.size());
  std::uint64_t offset = align(sizeof(Header) + table.size() * sizeof(Section));
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Section& s = table[k];
    std::memset(&s, 0, sizeof s);
    std::strncpy(s.name, parts[k].name, sizeof s.name - 1);
    s.offset = offset;
    s.bytes = parts[k].bytes;
    s.checksum = xxh64(parts[k].data, parts[k].bytes);
    offset = align(offset + parts[k].bytes);
  }
  Header header;
  std::memset(&header, 0, sizeof header);
  std::memcpy(header.magic, magic, sizeof header.magic);
  header.format_version = version;
  header.section_count = static_cast<std::uint32_t>(table.size());
  header.image_bytes = offset;
  header.load_mode = load_mode;
  header.layout = kLayout;
  std::vector<char> head(sizeof(Header) + table.size() * sizeof(Section));
  std::memcpy(head.data(), &header, sizeof header);
  std::memcpy(head.data() + sizeof header, table.data(), table.size() * sizeof(Section));
  header.table_checksum = xxh64(head.data(), head.size());
  std::memcpy(head.data(), &header, sizeof header);

  // core/base/safe_write.h: an exclusive no-follow temporary with a random name
  // (TARGET.tmp.PID.RANDOM, which heap_cache.cpp recognises by its pid),
  // never written through a device or a link planted at the image's name.
  auto file = SafeWrite::open(path, SpecialTarget::kRefuse);
  if (!file) {
    written.error = file.error().message;
    return written;
  }
  const int fd = (*file)->fd();
  bool ok = true;
  for (std::size_t k = 0; k < parts.size() && ok; ++k) {
    ok = write_all(fd, parts[k].data, parts[k].bytes, table[k].offset);
  }
  // The header goes last: a file cut before it has no magic.
  ok = ok && ::ftruncate(fd, static_cast<off_t>(header.image_bytes)) == 0 &&
       write_all(fd, head.data(), head.size(), 0);
  if (!ok) {
    written.error = "cannot write " + path + ": " + std::strerror(errno);
    return written;  // the temporary goes with `file`
  }
  if (auto error = (*file)->commit(false)) {
    written.error = error->message;
    return written;
  }
  written.table_checksum = header.table_checksum;
  return written;
}

Mapping::~Mapping() {
  if (base != nullptr) ::munmap(base, bytes);
}

const Section* MappedFile::find(std::string_view name) const {
  for (const Section& s : table) {
    if (std::string_view(s.name, strnlen(s.name, sizeof s.name)) == name) return &s;
  }
  return nullptr;
}

bool MappedFile::intact(const Section& s) const {
  return xxh64(mapping->at(s.offset), s.bytes) == s.checksum;
}

std::string Damage::why() const {
  const std::string name(section->name, strnlen(section->name, sizeof section->name));
  return values ? "a value out of range in section " + name
                : "checksum mismatch in section " + name;
}

Damage MappedFile::first_damaged(const Section* skip, const ValueChecks& checks) const {
  // The sections in two shares of about equal bytes (largest first, each to
  // the lighter share): one checked on a second thread, the other here. XXH64
  // runs at memory speed on one core (~10 GB/s), so on a warm explain of
  // three large images (~1.1 GB) this halves a tenth of a second. Every
  // section is still checked before the image is used.
  // Every page is about to be read: map them all in one call (from the page
  // cache, or read ahead from disk) rather than by a fault per 64 KiB. Only
  // now, after the head and key were checked: a stale image costs no read.
  // Kernels before 5.14 refuse it, and the faults happen as before.
  ::madvise(mapping->base, mapping->bytes, kPopulateRead);
  std::vector<const Section*> order;
  for (const Section& s : table) {
    if (&s != skip) order.push_back(&s);
  }
  std::sort(order.begin(), order.end(),
            [](const Section* a, const Section* b) { return a->bytes > b->bytes; });
  std::vector<const Section*> shares[2];
  std::uint64_t weight[2] = {0, 0};
  for (const Section* s : order) {
    const int k = weight[0] <= weight[1] ? 0 : 1;
    shares[k].push_back(s);
    weight[k] += s->bytes;
  }
  auto check_of = [&checks](const Section& s) -> const ValueCheck* {
    const std::string_view name(s.name, strnlen(s.name, sizeof s.name));
    for (const auto& [section, check] : checks) {
      if (section == name) return &check;
    }
    return nullptr;
  };
  // 64 KiB: hashed, then checked while still in L2.
  constexpr std::size_t kChunk = std::size_t{64} << 10;
  auto check = [&](const std::vector<const Section*>& share) -> Damage {
    for (const Section* s : share) {
      const ValueCheck* values = check_of(*s);
      if (values == nullptr) {
        if (!intact(*s)) return Damage{s, false};
        continue;
      }
      const char* base = mapping->at(s->offset);
      bool refused = false;
      const std::uint64_t sum =
          xxh64_visiting(base, s->bytes, kChunk, [&](std::size_t begin, std::size_t end) {
            refused = !(*values)(base, begin, end);
            return !refused;
          });
      // A damaged checksum says more than the values it makes wrong.
      if (refused) return Damage{s, xxh64(base, s->bytes) == s->checksum};
      if (sum != s->checksum) return Damage{s, false};
    }
    return Damage{};
  };
  Damage damaged[2];
  constexpr std::uint64_t kWorthAThread = std::uint64_t{16} << 20;
  if (weight[1] >= kWorthAThread) {
    try {
      std::thread helper([&] { damaged[1] = check(shares[1]); });
      damaged[0] = check(shares[0]);
      helper.join();
      return damaged[0] ? damaged[0] : damaged[1];
    } catch (const std::system_error&) {
      // No thread to be had: check it all here.
    }
  }
  damaged[0] = check(shares[0]);
  return damaged[0] ? damaged[0] : check(shares[1]);
}

MappedFile map_image_file(const std::string& path, const char (&magic)[8], std::uint32_t version) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (file.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return problem(FileProblem::kMissing, "no file");
    return problem(FileProblem::kCorrupt, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode))
    return problem(FileProblem::kCorrupt, "not a regular file");
  const auto file_bytes = static_cast<std::uint64_t>(info.st_size);
  if (file_bytes == 0) return problem(FileProblem::kTruncated, "empty");
  void* base = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, file.fd, 0);
  if (base == MAP_FAILED)
    return problem(FileProblem::kCorrupt, std::string("cannot map: ") + std::strerror(errno));
  MappedFile out;
  out.mapping = std::make_shared<Mapping>();
  out.mapping->base = base;
  out.mapping->bytes = file_bytes;
  out.problem = check_head(out.mapping->at(0), file_bytes, magic, version, out);
  if (out.problem != FileProblem::kNone) out.mapping.reset();
  return out;
}

}  // namespace heapleak::image
