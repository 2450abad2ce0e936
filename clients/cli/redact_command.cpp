// `heapleak redact`: copies dumps with every string value replaced by a
// keyed hash of the same length, so they can leave the machine; the answers
// (explain, stats, root...) stay the same.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <map>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "clients/cli/manifest_copy.h"
#include "core/base/safe_write.h"
#include "core/loading/loader.h"
#include "core/reading/dump_manifest.h"
#include "core/redaction/dump_redaction.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp = R"(usage: heapleak redact IN OUT [--key-file FILE]
       heapleak redact IN... OUTDIR [--key-file FILE]

Copies each dump (plain or gzip) with the value of every String and Symbol
replaced by a keyed hash (SipHash-2-4, in hex) of the same byte length:
equal values stay equal and sizes stay true, so every answer is the same on
the copy, while no value can be read back without the key. Class, module,
method and file names are kept (docs/security.md). A dump with a line that
cannot be read as a record is refused. OUT is gzip (level 1) when it ends in
.gz; into OUTDIR each copy keeps its file name (two inputs of one name are
refused). The capture manifest beside a dump (NAME.manifest.json) is copied
beside its copy, its free text redacted. Copies are written to a temporary,
mode 0600, and renamed only when complete; OUT may be /dev/stdout.

  --key-file FILE  the key (a regular file of at least 16 bytes; its first 16
                   are used), to redact dumps of one series, or of a fleet,
                   alike. Without it a random key is drawn for this run: give
                   every dump of a series in one run.
)";

// The key file: a regular file of ours, read for at most a few bytes. A
// FIFO would block, /dev/zero would never end: both are refused at once.
SipKey read_key(const std::optional<std::string>& key_file) {
  SipKey key{};
  if (!key_file) {
    std::size_t got = 0;
    while (got < key.size()) {
      const ssize_t n = getrandom(key.data() + got, key.size() - got, 0);
      if (n <= 0) throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
      got += static_cast<std::size_t>(n);
    }
    return key;
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer before fstat says no.
  const int fd = ::open(key_file->c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    throw UsageError{"cannot read the key file " + *key_file + ": " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError{"the key file " + *key_file + " is not a regular file"};
  }
  std::size_t got = 0;
  while (got < key.size()) {
    const ssize_t n = ::read(fd, key.data() + got, key.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got < key.size())
    throw UsageError{"the key file " + *key_file + " holds fewer than 16 bytes"};
  return key;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int run_redact(const std::vector<std::string>& argv) {
  const Args args = parse_args(argv, {{"--help", "-h"}, {"--key-file"}});
  if (args.has("--help") || args.has("-h")) {
    std::cout << kHelp;
    return kExitOk;
  }
  if (args.positional.size() < 2) throw UsageError{"expects IN OUT, or IN... OUTDIR"};
  const std::string& last = args.positional.back();
  const std::vector<std::string> inputs(args.positional.begin(), args.positional.end() - 1);
  const bool into_dir = is_directory(last);
  if (!into_dir && inputs.size() > 1)
    throw UsageError{"with several dumps the last argument is a folder: " + last};
  // Two inputs of one name would be one copy, the last written: refused.
  if (into_dir) {
    std::map<std::string, std::string> seen;
    for (const std::string& in : inputs) {
      auto [at, fresh] = seen.emplace(base_name(in), in);
      if (!fresh)
        throw UsageError{in + " and " + at->second + " would both be copied to " + last + "/" +
                         base_name(in) + ": redact them into different folders"};
    }
  }
  const SipKey key = read_key(args.value("--key-file"));
  // The temporaries of a redact that was killed (core/base/safe_write.h names
  // them with their pid): only ours, only when that process is gone.
  remove_stale_temporaries(into_dir ? last : folder_of(last));
  for (const std::string& in : inputs) {
    const std::string out = into_dir ? last + "/" + base_name(in) : last;
    auto stats = redact_dump(in, out, key, LoadOptions{}.max_line_bytes);
    if (!stats) return report_error(stats.error());
    std::cerr << "heapleak redact: " << out << ": " << stats->values_redacted << " of "
              << stats->lines << " records had a String or Symbol value, redacted\n";
    if (stats->truncated)
      std::cerr << "heapleak redact: warning: " << in
                << " is cut short: the copy holds what could be read\n";
    if (!is_regular_file(out)) continue;  // /dev/stdout: no manifest beside it
    auto manifest = copy_manifest(in, out, key);
    if (!manifest) return report_error(manifest.error());
    if (*manifest)
      std::cerr << "heapleak redact: " << manifest_path_for(out) << ": the manifest, redacted\n";
  }
  return kExitOk;
}

}  // namespace heapleak::cli
