// heapleak-client's terminal tables: a cell too long for its column is cut in
// the middle, keeping the end that tells rows apart (an allocation site's
// file:line, the last segment of a class name), and nothing is cut when the
// terminal is wide enough.
#include "clients/client/table.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "clients/client/terminal.h"

using heapleak::client::Column;
using heapleak::client::display_width;
using heapleak::client::Table;
using heapleak::client::Terminal;

TEST_CASE("truncate keeps the start and more of the end", "[table]") {
  const std::string site = "/srv/app/vendor/bundle/gems/activesupport-6.1/lib/cache.rb:42";
  const std::string cut = heapleak::client::truncate(site, 24);
  CHECK(display_width(cut) == 24);
  CHECK(cut.find("...") != std::string::npos);
  CHECK(cut.rfind("cache.rb:42") == cut.size() - std::string("cache.rb:42").size());
  CHECK(cut.rfind("/srv", 0) == 0);
  CHECK(heapleak::client::truncate("User", 24) == "User");
}

TEST_CASE("a narrow table cuts its flexible column in the middle", "[table]") {
  Table table({{"GROUP", false, true}, {"COUNT", true}});
  table.add({"PriceCalculator::Internal::QuoteBuilder::Quote", "3,000"});
  table.add({"app/models/very/deeply/nested/price_calculator.rb:118", "12"});
  std::ostringstream narrow;
  table.print(narrow, Terminal{40, false, false});
  const std::string text = narrow.str();
  CHECK(text.find("::Quote") != std::string::npos);
  CHECK(text.find("calculator.rb:118") != std::string::npos);
  CHECK(text.find("3,000") != std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(display_width(line) <= 40);

  std::ostringstream wide;
  table.print(wide, Terminal{200, false, false});
  CHECK(wide.str().find("PriceCalculator::Internal::QuoteBuilder::Quote") != std::string::npos);
}
