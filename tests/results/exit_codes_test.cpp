#include "results/product/exit_codes.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "core/base/error.h"

using namespace heapleak;

TEST_CASE("every failure reason has its own exit code", "[exit_codes]") {
  // By the reason's wire name: heapleak (core's ErrorReason) and
  // heapleak-client (the daemon's data.reason) land on the same number.
  const std::map<ErrorReason, int> expected{
      {ErrorReason::kFileNotFound, 3},     {ErrorReason::kNotReadable, 14},
      {ErrorReason::kNotAHeapDump, 15},    {ErrorReason::kCorruptInput, 7},
      {ErrorReason::kUnknownAddress, 4},   {ErrorReason::kNoAnswer, 1},
      {ErrorReason::kInvalidArgument, 10}, {ErrorReason::kCancelled, 130},
      {ErrorReason::kOverBudget, 9},       {ErrorReason::kNotWritable, 16},
  };
  std::set<int> seen;
  for (const auto& [reason, code] : expected) {
    INFO(reason_name(reason));
    CHECK(exit_code_for_reason(reason_name(reason), -1) == code);
    CHECK(seen.insert(code).second);
  }
  // check's own verdicts never stand for a reason.
  CHECK_FALSE(seen.count(kExitGateFailed));
  CHECK_FALSE(seen.count(kExitGateError));
  CHECK(exit_code_for_reason("unknownHeap", -1) == 8);
  // Not an exit: dumpChanged only qualifies an object's record.
  CHECK(exit_code_for_reason(reason_name(ErrorReason::kDumpChanged), -1) == -1);
  CHECK(exit_code_for_reason("noSuchReason", kExitDaemonError) == kExitDaemonError);
}

TEST_CASE("the --help table lists each code once and points to the docs", "[exit_codes]") {
  const std::string table = exit_code_table();
  const std::regex row(R"(\n\s{1,4}(\d+)  )");
  std::set<int> codes;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row);
       it != std::sregex_iterator(); ++it)
    CHECK(codes.insert(std::stoi((*it)[1])).second);
  CHECK(codes == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 130});
  CHECK(table.substr(table.rfind('\n', table.size() - 2) + 1) ==
        "heapleak and heapleak-client share this table: docs/exit-codes.md\n");
}
