// read_mapped (core/reading/mapped_reads.h): the SIGBUS of a read past the end of a
// mapped file that was cut short becomes `false` for the guarded call, and
// only for a read in its range. The loader's use of it is tested with the
// other damaged input, in load_limits_test.cpp.
#include "core/reading/mapped_reads.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

TEST_CASE("read_mapped turns SIGBUS past a file's new end into false", "[mapped]") {
  const long page = ::sysconf(_SC_PAGESIZE);
  TempFile file(std::string(3 * static_cast<std::size_t>(page), 'x'));
  const int fd = ::open(file.path().c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  auto* map = static_cast<const char*>(::mmap(nullptr, 3 * page, PROT_READ, MAP_SHARED, fd, 0));
  REQUIRE(map != MAP_FAILED);
  REQUIRE(::ftruncate(fd, page) == 0);
  const char* const end = map + 3 * page;
  char seen = 0;
  CHECK(read_mapped(map, end, [&] { seen = map[0]; }));
  CHECK(seen == 'x');
  // The third page is past the file's end now: reading it raises SIGBUS.
  volatile char past = 0;
  CHECK_FALSE(read_mapped(map, end, [&] { past = map[2 * page]; }));
  // The guard is gone with its call; another one works the same.
  CHECK_FALSE(read_mapped(map, end, [&] { past = map[2 * page + 1]; }));
  CHECK(read_mapped(map, end, [&] { seen = map[page - 1]; }));
  // Nested: the inner range does not cover the read, the outer one does.
  bool inner = true;
  CHECK_FALSE(read_mapped(
      map, end, [&] { inner = read_mapped(map, map + page, [&] { past = map[2 * page]; }); }));
  CHECK(inner);  // never returned: the outer guard took the fault
  ::munmap(const_cast<char*>(map), 3 * page);
  ::close(fd);
}
