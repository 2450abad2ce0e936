#include "results/leak_message.h"

#include "results/text/human_bytes.h"

namespace heapleak::results {
using text::grouped;
using text::human_bytes;

std::string leak_sentence(const LeakCluster& row, bool at_sites) {
  std::string what;
  if (row.classes.empty()) {
    what = grouped(row.count) + (row.count == 1 ? " object" : " objects");
  } else if (row.classes.size() == 1) {
    what = grouped(row.classes.front().count) + " " + row.classes.front().name;
  } else {
    // The three biggest classes by bytes, then how many more: enough to
    // recognise the leak in a one-line annotation.
    for (std::size_t k = 0; k < row.classes.size() && k < 3; ++k)
      what += (k ? ", " : "") + grouped(row.classes[k].count) + " " + row.classes[k].name;
    if (row.classes.size() > 3) {
      const std::size_t more = row.classes.size() - 3;
      what += " and " + std::to_string(more) + (more == 1 ? " more class" : " more classes");
    }
    what += " (" + grouped(row.count) + (row.count == 1 ? " object)" : " objects)");
  }
  return what + (at_sites ? " allocated here" : "") +
         (row.count == 1 ? " is held by " : " are held by ") + row.key + ": " +
         human_bytes(row.retained) + " retained";
}

}  // namespace heapleak::results
