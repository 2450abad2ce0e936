#include "daemon/mcp_text.h"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "clients/common/human_bytes.h"
#include "clients/common/utf8_text.h"

namespace heapleak::daemon {
namespace json = boost::json;

namespace {

const json::value kNull;

const json::value& at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value ? *value : kNull;
}

std::string str(const json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  if (value.is_null()) return "-";
  return json::serialize(value);
}

std::int64_t num(const json::value& value) {
  return value.is_number() ? value.to_number<std::int64_t>() : 0;
}

const json::array& rows(const json::value& value) {
  static const json::array kEmpty;
  return value.is_array() ? value.get_array() : kEmpty;
}

const json::object& obj(const json::value& value) {
  static const json::object kEmpty;
  return value.is_object() ? value.get_object() : kEmpty;
}

// 2713 -> "2,713"
std::string count(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int k = static_cast<int>(digits.size()) - 3; k > 0; k -= 3) digits.insert(k, ",");
  return n < 0 ? "-" + digits : digits;
}

// "1 leak", "2 leaks"
std::string counted(std::int64_t n, std::string_view one, std::string_view many) {
  return count(n) + " " + std::string(n == 1 ? one : many);
}

std::string bytes(const json::value& value) {
  return clients::human_bytes(static_cast<double>(num(value)));
}

std::string pad(std::string text, std::size_t width, bool right = false) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

// "0x7f.. Hash (User at app.rb:12)"
std::string summary(const json::value& value) {
  const json::object& object = obj(value);
  if (object.empty()) return "-";
  std::string text = str(at(object, "address")) + " " + str(at(object, "name"));
  if (at(object, "file").is_string()) {
    text += " at " + str(at(object, "file")) + ":" + std::to_string(num(at(object, "line")));
  }
  return text;
}

std::string joined(const json::value& names, std::string_view separator) {
  std::string text;
  for (const json::value& name : rows(names)) {
    if (!text.empty()) text += separator;
    text += str(name);
  }
  return text;
}

// A table of object summaries with a column of extra numbers.
std::string object_table(const json::array& items, std::string_view extra_title,
                         std::string (*extra)(const json::object&)) {
  std::string text =
      "ADDRESS          " + pad(std::string(extra_title), 11, true) + "  TYPE     NAME\n";
  for (const json::value& item : items) {
    const json::object& object = obj(item);
    std::string line = pad(str(at(object, "address")), 16) + " " + pad(extra(object), 11, true) +
                       "  " + pad(str(at(object, "type")), 8) + " " + str(at(object, "name"));
    if (at(object, "file").is_string()) {
      line += "  (" + str(at(object, "file")) + ":" + std::to_string(num(at(object, "line"))) + ")";
    }
    text += line + "\n";
  }
  return text;
}

std::string memsize_of(const json::object& object) { return bytes(at(object, "memsize")); }
std::string retained_of(const json::object& object) { return bytes(at(object, "retained")); }

std::string more(const json::object& result, std::string_view tool, std::string_view argument) {
  if (!at(result, "nextOffset").is_number()) return "";
  return "More rows are available: call " + std::string(tool) + " again with " +
         std::string(argument) + "=" + std::to_string(num(at(result, "nextOffset"))) + ".\n";
}

std::string warnings(const json::object& result) {
  std::string text;
  for (const json::value& warning : rows(at(result, "warnings"))) {
    text += "warning: " + str(warning) + "\n";
  }
  return text;
}

std::string growth(const json::value& value) {
  const json::object& g = obj(value);
  if (g.empty()) return "-";
  return str(at(g, "baseline")) + ">" + str(at(g, "target")) + ">" + str(at(g, "later"));
}

// "1,800 String (84.4 KiB) at app.rb:12 +3 sites"
std::string held(const json::value& value) {
  std::string text;
  for (const json::value& item : rows(value)) {
    const json::object& group = obj(item);
    if (!text.empty()) text += "; ";
    text += count(num(at(group, "count"))) + " " + str(at(group, "name")) + " (" +
            bytes(at(group, "memsize")) + ")";
    const json::array& sites = rows(at(group, "sites"));
    if (!sites.empty()) {
      text += " at " + str(at(obj(sites.front()), "site"));
      if (sites.size() > 1) {
        text += " +" + counted(static_cast<std::int64_t>(sites.size() - 1), "site", "sites");
      }
    }
  }
  return text;
}

}  // namespace

std::string mcp_loaded_text(const json::object& loaded) {
  std::string text = "Loaded " + str(at(loaded, "path")) + " as heap " + str(at(loaded, "heap")) +
                     " (name \"" + str(at(loaded, "name")) +
                     "\"): " + count(num(at(loaded, "objects"))) + " objects, " +
                     (at(loaded, "traced").is_bool() && at(loaded, "traced").get_bool()
                          ? "with allocation sites"
                          : "without allocation sites (no trace_object_allocations)") +
                     ", " + bytes(at(loaded, "residentBytes")) + " resident.\n";
  if (num(at(loaded, "brokenLines")) > 0) {
    text += count(num(at(loaded, "brokenLines"))) + " broken lines skipped.\n";
  }
  return text + warnings(loaded);
}

std::string mcp_heaps_text(const json::object& heaps) {
  const json::array& list = rows(at(heaps, "heaps"));
  std::string text =
      std::to_string(list.size()) + " heaps loaded, " + bytes(at(heaps, "usedBytes")) + " used" +
      (num(at(heaps, "maxBytes")) > 0 ? " of " + bytes(at(heaps, "maxBytes")) : "") + ".\n";
  if (!list.empty()) text += "ID    OBJECTS     RESIDENT  TRACED  NAME  (PATH)\n";
  for (const json::value& item : list) {
    const json::object& heap = obj(item);
    const bool traced = at(heap, "traced").is_bool() && at(heap, "traced").get_bool();
    text += pad(str(at(heap, "heap")), 5) + " " + pad(count(num(at(heap, "objects"))), 11, true) +
            " " + pad(bytes(at(heap, "residentBytes")), 11, true) + "  " +
            pad(traced ? "yes" : "no", 6) + "  " + str(at(heap, "name")) + "  (" +
            str(at(heap, "path")) + ")\n";
  }
  for (const json::value& name : rows(at(heaps, "loading"))) text += "loading: " + str(name) + "\n";
  return text;
}

std::string mcp_unloaded_text(const json::object& unloaded) {
  return "Unloaded heap " + str(at(unloaded, "heap")) + " (" + str(at(unloaded, "name")) + ").\n";
}

std::string mcp_leaks_text(const json::object& explain) {
  const json::array& leaks = rows(at(explain, "leaks"));
  const json::object& total = obj(at(explain, "total"));
  std::string text = counted(num(at(explain, "leakCount")), "leak", "leaks") + " in heap " +
                     str(at(explain, "target")) + " (" + count(num(at(total, "count"))) +
                     " objects, " + bytes(at(total, "memsize")) + " new and still alive), " +
                     counted(num(at(explain, "noiseCount")), "row", "rows") +
                     " probably not leaks. Most retained first";
  text += num(at(explain, "offset")) > 0
              ? ", from row " + std::to_string(num(at(explain, "offset")) + 1) + ":\n"
              : ":\n";
  if (!leaks.empty()) text += "#   RETAINED    OBJECTS  GROWTH A>B>C     LEAK\n";
  std::int64_t rank = num(at(explain, "offset"));
  for (const json::value& item : leaks) {
    const json::object& row = obj(item);
    text += pad(std::to_string(++rank), 3) + " " + pad(bytes(at(row, "retained")), 10, true) + " " +
            pad(count(num(at(row, "count"))), 10, true) + "  " +
            pad(growth(at(row, "growth")), 16) + " " + str(at(row, "key")) + "\n";
    text += "    holder: " + summary(at(row, "holder")) + "\n";
    text += "    path:   " + joined(at(row, "pathNames"), " -> ") + "\n";
    text += "    holds:  " + held(at(row, "objects")) + "\n";
    text += "    samples: " + joined(at(row, "samples"), " ") + "\n";
  }
  const json::array& noise = rows(at(explain, "noise"));
  if (!noise.empty()) {
    text += "Probably not leaks:\n";
    for (const json::value& item : noise) {
      const json::object& row = obj(item);
      text += "-   " + pad(bytes(at(row, "retained")), 10, true) + " " +
              pad(count(num(at(row, "count"))), 10, true) + "  " + str(at(row, "key")) + " [" +
              str(at(row, "reason")) + "]\n";
    }
  }
  return text + more(explain, "find_leaks", "offset") + warnings(explain);
}

std::string mcp_stats_text(const json::object& stats) {
  const json::object& total = obj(at(stats, "total"));
  std::string text = count(num(at(total, "count"))) + " objects (" + bytes(at(total, "memsize")) +
                     ") new in " + str(at(stats, "target")) + " since " +
                     str(at(stats, "baseline")) +
                     (at(stats, "later").is_string() ? ", still alive in " + str(at(stats, "later"))
                                                     : std::string()) +
                     ", in " + count(num(at(stats, "groupCount"))) + " groups by " +
                     str(at(stats, "groupBy")) + ":\n";
  text += "GROUP                                COUNT       BYTES  SAMPLES\n";
  for (const json::value& item : rows(at(stats, "groups"))) {
    const json::object& group = obj(item);
    text += pad(str(at(group, "key")), 32) + " " + pad(count(num(at(group, "count"))), 9, true) +
            " " + pad(bytes(at(group, "memsize")), 11, true) + "  " +
            joined(at(group, "samples"), " ") + "\n";
  }
  return text + more(stats, "leak_stats", "offset") + warnings(stats);
}

std::string mcp_retainer_text(const json::object& root) {
  std::string text;
  if (at(root, "retainer").is_null()) {
    text = "No common retainer holds " +
           (num(at(root, "samplesReached")) > 0 ? std::string("them all") : "these samples") +
           (at(root, "budgetExhausted").is_bool() && at(root, "budgetExhausted").get_bool()
                ? " within the visit budget"
                : "") +
           ".\n";
  } else {
    text = "Nearest common retainer: " + summary(at(root, "retainerObject")) + ", holding " +
           std::to_string(rows(at(root, "samples")).size()) + " samples at distance " +
           std::to_string(num(at(root, "distance"))) + ".\n";
    const json::object& path = obj(at(root, "rootPath"));
    if (!path.empty()) {
      text += "Its path: ROOT " + str(at(path, "root"));
      for (const json::value& object : rows(at(path, "objects")))
        text += " -> " + str(at(obj(object), "name"));
      text += "\n";
    }
  }
  if (at(root, "retainerNote").is_string()) text += "Note: " + str(at(root, "retainerNote")) + "\n";
  if (at(root, "split").is_bool() && at(root, "split").get_bool()) {
    text += "The samples sit in different containers:\n";
    for (const json::value& group : rows(at(root, "groups"))) {
      text += "- " + summary(at(obj(group), "retainer")) + ": " +
              joined(at(obj(group), "samples"), " ") + "\n";
    }
  }
  if (!rows(at(root, "unknown")).empty()) {
    text += "Not in this heap: " + joined(at(root, "unknown"), " ") + "\n";
  }
  return text;
}

std::string mcp_owner_text(const json::object& owner) {
  std::string text;
  const json::object& single = obj(at(owner, "owner"));
  if (!single.empty()) {
    text = "Owner of the " + count(num(at(owner, "objects"))) + " objects: " + summary(single) +
           ", retaining " + bytes(at(single, "retained")) + ".\n";
    text += "Its path: ROOT " + str(at(owner, "root")) + " -> " +
            joined(at(owner, "path"), " -> ") + "\n";
  } else {
    text = "No single object owns them; owners by part:\n" +
           object_table(rows(at(owner, "owners")), "RETAINED", &retained_of);
  }
  if (!rows(at(owner, "unreachable")).empty()) {
    text += "Not reachable from a GC root: " + joined(at(owner, "unreachable"), " ") + "\n";
  }
  return text;
}

std::string mcp_path_text(const json::object& path) {
  const json::array& objects = rows(at(path, "objects"));
  return "ROOT " + str(at(path, "root")) + " reaches the object in " +
         std::to_string(objects.size()) + " steps:\n" + object_table(objects, "BYTES", &memsize_of);
}

std::string mcp_object_text(const json::object& inspected) {
  const json::object& object = obj(at(inspected, "object"));
  std::string text = summary(object) + ": " + str(at(object, "type")) + ", " +
                     bytes(at(object, "memsize")) + ", " +
                     counted(num(at(object, "referrersCount")), "referrer", "referrers") + ", " +
                     counted(num(at(object, "referencesCount")), "reference", "references") + ".\n";
  if (at(object, "record").is_object()) {
    std::string record = json::serialize(at(object, "record"));
    // Cut on a character boundary: a reply cut inside one is invalid UTF-8.
    if (record.size() > 600) record = std::string(clients::utf8_prefix(record, 600)) + "...";
    text += "record: " + record + "\n";
  } else if (at(object, "recordError").is_string()) {
    text += "record: not available (" + str(at(object, "recordError")) + ")\n";
  }
  for (std::string_view side : {"referrers", "references"}) {
    const json::object& page = obj(at(inspected, side));
    const json::array& items = rows(at(page, "items"));
    text += std::string(side) + " " +
            std::to_string(num(at(page, "offset")) + (items.empty() ? 0 : 1)) + "-" +
            std::to_string(num(at(page, "offset")) + static_cast<std::int64_t>(items.size())) +
            " of " + count(num(at(page, "total"))) + ":\n";
    if (!items.empty()) text += object_table(items, "BYTES", &memsize_of);
    if (at(page, "nextOffset").is_number()) {
      text += "More " + std::string(side) + ": call inspect_object again with " +
              std::string(side) + "Offset=" + std::to_string(num(at(page, "nextOffset"))) + ".\n";
    }
  }
  return text;
}

std::string mcp_top_text(const json::object& top) {
  std::string text = "Heap " + str(at(top, "heap")) + ": " + count(num(at(top, "reachable"))) +
                     " objects reachable, " + count(num(at(obj(at(top, "unreachable")), "count"))) +
                     " not (" + bytes(at(obj(at(top, "unreachable")), "memsize")) + ").\n";
  if (at(top, "classes").is_array()) {
    text += "CLASS                                COUNT     RETAINED\n";
    for (const json::value& item : rows(at(top, "classes"))) {
      const json::object& group = obj(item);
      text += pad(str(at(group, "key")), 32) + " " + pad(count(num(at(group, "count"))), 9, true) +
              " " + pad(bytes(at(group, "retained")), 12, true) + "\n";
    }
  } else {
    text += object_table(rows(at(top, "retainers")), "RETAINED", &retained_of);
  }
  return text + more(top, "top_retainers", "offset");
}

}  // namespace heapleak::daemon
