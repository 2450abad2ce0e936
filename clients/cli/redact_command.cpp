// `heapleak redact`: copies dumps with every string value replaced by a
// keyed hash of the same length, so they can leave the machine; the answers
// (explain, stats, root...) stay the same.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

#include "clients/cli/cli_output.h"
#include "clients/cli/commands.h"
#include "core/dump_redaction.h"

namespace heapleak::cli {
namespace {

constexpr const char* kHelp = R"(usage: heapleak redact IN OUT [--key-file FILE]
       heapleak redact IN... OUTDIR [--key-file FILE]

Copies each dump (plain or gzip) with the value of every String replaced by
a keyed hash (SipHash-2-4, in hex) of the same byte length: equal strings
stay equal and sizes stay true, so every answer is the same on the copy,
while no string value can be read back without the key. Class, method and
file names are kept. OUT is gzip (level 1) when it ends in .gz; into OUTDIR
each copy keeps its file name. Copies are written to a temporary, mode
0600, and renamed only when complete.

  --key-file FILE  the key (at least 16 bytes; its first 16 are used), to
                   redact dumps of one series, or of a fleet, alike. Without
                   it a random key is drawn for this run: give every dump of
                   a series in one run.
)";

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
  std::ifstream in(*key_file, std::ios::binary);
  if (!in) throw UsageError{"cannot read the key file " + *key_file};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < key.size())
    throw UsageError{"the key file " + *key_file + " holds fewer than 16 bytes"};
  std::memcpy(key.data(), bytes.data(), key.size());
  return key;
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
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
  const SipKey key = read_key(args.value("--key-file"));
  for (const std::string& in : inputs) {
    const std::string out = into_dir ? last + "/" + base_name(in) : last;
    auto stats = redact_dump(in, out, key);
    if (!stats) return report_error(stats.error());
    std::cerr << "heapleak redact: " << out << ": " << stats->strings_redacted << " of "
              << stats->lines << " records had a string value, redacted\n";
    if (stats->truncated)
      std::cerr << "heapleak redact: warning: " << in
                << " is cut short: the copy holds what could be read\n";
  }
  return kExitOk;
}

}  // namespace heapleak::cli
