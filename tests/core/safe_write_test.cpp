// core/safe_write: the one path by which heapleak writes a file. Each case
// plants what an attacker (or an accident) would put at the target's name or
// makes the folder unfit, and checks nothing is followed, replaced or written.
#include "core/base/safe_write.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace heapleak {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/safe-write-test-XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    path = name;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  DIR* listing = ::opendir(dir.c_str());
  while (const dirent* entry = ::readdir(listing))
    if (entry->d_name[0] != '.') names.push_back(entry->d_name);
  ::closedir(listing);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("a new file is 0600, complete, and leaves no temporary", "[safe_write]") {
  TempDir dir;
  REQUIRE_FALSE(write_file_safely(dir / "out.json", "hello\n", SpecialTarget::kRefuse));
  CHECK(slurp(dir / "out.json") == "hello\n");
  struct stat st {};
  REQUIRE(::stat((dir / "out.json").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(names_in(dir.path) == std::vector<std::string>{"out.json"});
  SECTION("a file it replaces keeps its permission bits") {
    ::chmod((dir / "out.json").c_str(), 0644);
    REQUIRE_FALSE(write_file_safely(dir / "out.json", "again\n", SpecialTarget::kRefuse));
    REQUIRE(::stat((dir / "out.json").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);
    CHECK(slurp(dir / "out.json") == "again\n");
  }
}

TEST_CASE("a symbolic link at the target is refused, never followed or replaced", "[safe_write]") {
  TempDir dir;
  spit(dir / "shared", "theirs\n");
  REQUIRE(::symlink((dir / "shared").c_str(), (dir / "link").c_str()) == 0);
  for (auto special : {SpecialTarget::kRefuse, SpecialTarget::kWriteThrough}) {
    auto error = write_file_safely(dir / "link", "mine\n", special);
    REQUIRE(error);
    CHECK(error->reason == ErrorReason::kNotWritable);
    CHECK(error->message.find("symbolic link") != std::string::npos);
  }
  struct stat st {};
  REQUIRE(::lstat((dir / "link").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(slurp(dir / "shared") == "theirs\n");
}

TEST_CASE("temporaries get unpredictable names, created exclusively", "[safe_write]") {
  TempDir dir;
  auto first = SafeWrite::open(dir / "out", SpecialTarget::kRefuse);
  auto second = SafeWrite::open(dir / "out", SpecialTarget::kRefuse);
  REQUIRE(first);
  REQUIRE(second);
  CHECK((*first)->temp_path() != (*second)->temp_path());
  const std::string prefix = dir / ("out.tmp." + std::to_string(::getpid()) + ".");
  CHECK((*first)->temp_path().rfind(prefix, 0) == 0);
  CHECK((*first)->temp_path().size() == prefix.size() + 16);
  struct stat st {};
  REQUIRE(::fstat((*first)->fd(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // Dropped uncommitted: the temporary goes, the target never appears.
  const std::string temp = (*first)->temp_path();
  first->reset();
  CHECK(::access(temp.c_str(), F_OK) != 0);
  CHECK(::access((dir / "out").c_str(), F_OK) != 0);
}

TEST_CASE("a FIFO is written through or refused, never renamed over", "[safe_write]") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  auto refused = write_file_safely(dir / "fifo", "x", SpecialTarget::kRefuse);
  REQUIRE(refused);
  CHECK(refused->message.find("not a regular file") != std::string::npos);
  // Written through: a reader on the other end gets the bytes.
  const int reader = ::open((dir / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  REQUIRE_FALSE(write_file_safely(dir / "fifo", "through\n", SpecialTarget::kWriteThrough));
  char got[16] = {};
  CHECK(::read(reader, got, sizeof got) == 8);
  ::close(reader);
  CHECK(std::string(got) == "through\n");
  struct stat st {};
  REQUIRE(::lstat((dir / "fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(names_in(dir.path) == std::vector<std::string>{"fifo"});
}

TEST_CASE("folders others may write, or of another user, are refused", "[safe_write]") {
  TempDir dir;
  ::chmod(dir.path.c_str(), 0777);
  auto error = write_file_safely(dir / "out", "x", SpecialTarget::kRefuse);
  REQUIRE(error);
  CHECK(error->message.find("may be written by other users") != std::string::npos);
  ::chmod(dir.path.c_str(), 01777);  // sticky, as /tmp: allowed
  CHECK_FALSE(write_file_safely(dir / "out", "x", SpecialTarget::kRefuse));
  ::chmod(dir.path.c_str(), 0700);
  if (::geteuid() == 0) {  // only root can give a folder away
    REQUIRE(::chown(dir.path.c_str(), 65534, 65534) == 0);
    auto theirs = write_file_safely(dir / "other", "x", SpecialTarget::kRefuse);
    REQUIRE(theirs);
    CHECK(theirs->message.find("belongs to another user") != std::string::npos);
    REQUIRE(::chown(dir.path.c_str(), 0, 0) == 0);
  }
}

TEST_CASE("stale temporaries: only dead writers' files of ours go", "[safe_write]") {
  TempDir dir;
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const std::string dead = "a.json.tmp." + std::to_string(child) + ".0123456789abcdef";
  const std::string alive = "a.json.tmp." + std::to_string(::getpid()) + ".0123456789abcdef";
  const std::string other = "a.json.tmp." + std::to_string(child) + ".1";  // not our name
  for (const auto& name : {dead, alive, other}) spit(dir / name, "x");
  CHECK(is_stale_temporary_name(dead));
  CHECK_FALSE(is_stale_temporary_name(alive));
  CHECK_FALSE(is_stale_temporary_name(other));
  CHECK(remove_stale_temporaries(dir.path) == 1);
  // names_in sorts by name, and which of the two sorts first depends on the pids' digits
  std::vector<std::string> kept{alive, other};
  std::sort(kept.begin(), kept.end());
  CHECK(names_in(dir.path) == kept);
}

}  // namespace heapleak
