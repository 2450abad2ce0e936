#include "clients/cli/size_arg.h"

#include <catch2/catch.hpp>

#include "clients/cli/cli_args.h"

using heapleak::cli::parse_byte_size;
using heapleak::cli::UsageError;

TEST_CASE("size flags: IEC and short units are powers of 1024, SI ones of 1000") {
  CHECK(parse_byte_size("--max", "500000") == 500000);
  CHECK(parse_byte_size("--max", "80B") == 80);
  CHECK(parse_byte_size("--max", "512KiB") == 512 * 1024);
  CHECK(parse_byte_size("--max", "512k") == 512 * 1024);
  CHECK(parse_byte_size("--max", "5MiB") == 5 * 1048576);
  CHECK(parse_byte_size("--max", "5 MiB") == 5 * 1048576);
  CHECK(parse_byte_size("--max", "5M") == 5 * 1048576);
  CHECK(parse_byte_size("--max", "1.5GiB") == 1610612736);
  CHECK(parse_byte_size("--max", "2TiB") == 2199023255552ull);
  CHECK(parse_byte_size("--max", "1.5GB") == 1500000000);
  CHECK(parse_byte_size("--max", "5MB") == 5000000);
  CHECK(parse_byte_size("--max", "3kB") == 3000);
}

TEST_CASE("size flags: anything else is a usage error naming the flag") {
  for (const char* bad : {"", "MiB", "5XB", "-1", "1e3", "5 MiB ", "1..2M", "99999999TiB"}) {
    INFO(bad);
    try {
      parse_byte_size("--max-leaked-bytes", bad);
      FAIL("accepted");
    } catch (const UsageError& error) {
      CHECK_THAT(error.message, Catch::Contains("--max-leaked-bytes") && Catch::Contains("5MiB"));
    }
  }
}
