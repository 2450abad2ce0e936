#include "daemon/mcp/mcp_catalog.h"

#include <boost/json/parse.hpp>

namespace heapleak::daemon {
namespace {

// Pieces the schemas below share, named by a "@NAME" string in their place.
constexpr const char* kPieces = R"json({
"@HEAP":{"type":"string","description":"a heap: its id (h1, h2...) or name, as load_dump or list_heaps report it, or a dump file's path (loaded on first use, reused while the file is unchanged, reloaded when it changed: no load_dump needed)"},
"@HEAP_A":{"type":"string","description":"the first dump's heap (A): id, name or dump file path"},
"@HEAP_B":{"type":"string","description":"the second dump's heap (B): id, name or dump file path"},
"@HEAP_C":{"type":"string","description":"the third dump's heap (C): id, name or dump file path; without it every object new in B counts"},
"@ADDRESS":{"type":"string","pattern":"^0x[0-9a-fA-F]+$","description":"an object address as in the dump: 0x followed by hex digits"},
"@LIMIT10":{"type":"integer","minimum":0,"default":10,"description":"rows in this page (0: all)"},
"@LIMIT20":{"type":"integer","minimum":0,"default":20,"description":"rows in this page (0: all)"},
"@OFFSET":{"type":"integer","minimum":0,"default":0,"description":"first row of the page: the nextOffset of the previous page"},
"@NEXT":{"type":"integer","description":"present when more rows are available: pass it as offset"},
"@SUMMARY":{"type":"object","required":["address","type","name"],"properties":{"address":{"type":"string"},"type":{"type":"string"},"class":{"type":"string"},"name":{"type":"string"},"key":{"type":"string"},"memsize":{"type":"integer"},"file":{"type":"string"},"line":{"type":"integer"}}}
})json";

constexpr const char* kTools = R"json([
{"name":"load_dump","title":"Load a Ruby heap dump",
 "description":"Load one ObjectSpace.dump_all file (plain or gzip) into heapleakd and keep it resident. A leak hunt needs three dumps of one process taken some time apart (A, B, C): load each, then call find_leaks. Reports progress when the call carries a progress token. Returns the heap id (h1...) the other tools take.",
 "inputSchema":{"type":"object","required":["path"],"additionalProperties":false,"properties":{
   "path":{"type":"string","description":"the dump file, absolute or relative to heapleakd's working directory"},
   "name":{"type":"string","description":"a name to refer to the heap by (default: the file name); must not look like an id (h3)"}}},
 "outputSchema":{"type":"object","required":["heap","name","path","objects"],"properties":{
   "heap":{"type":"string"},"name":{"type":"string"},"path":{"type":"string"},"objects":{"type":"integer"},
   "traced":{"type":"boolean"},"truncated":{"type":"boolean"},"gzip":{"type":"boolean"},
   "fileBytes":{"type":"integer"},"residentBytes":{"type":"integer"},"loadSeconds":{"type":"number"},
   "brokenLines":{"type":"integer"},"warnings":{"type":"array","items":{"type":"string"}}}},
 "annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":false,"openWorldHint":false}},

{"name":"list_heaps","title":"List the loaded heaps",
 "description":"The heaps heapleakd holds (id, name, path, objects, memory), the loads still running, and the memory used against the --max-memory budget.",
 "inputSchema":{"type":"object","additionalProperties":false,"properties":{}},
 "outputSchema":{"type":"object","required":["heaps","usedBytes","maxBytes"],"properties":{
   "heaps":{"type":"array","items":{"type":"object","required":["heap","name","path","objects"],"properties":{
     "heap":{"type":"string"},"name":{"type":"string"},"path":{"type":"string"},"objects":{"type":"integer"},
     "residentBytes":{"type":"integer"},"traced":{"type":"boolean"}}}},
   "loading":{"type":"array","items":{"type":"string"}},"usedBytes":{"type":"integer"},"maxBytes":{"type":"integer"}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"unload_heap","title":"Unload a heap",
 "description":"Free a loaded heap. Its id is never reused.",
 "inputSchema":{"type":"object","required":["heap"],"additionalProperties":false,"properties":{"heap":"@HEAP"}},
 "outputSchema":{"type":"object","required":["heap","name","unloaded"],"properties":{"heap":{"type":"string"},"name":{"type":"string"},"unloaded":{"type":"boolean"}}},
 "annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":false}},

{"name":"find_leaks","title":"Find the leaks (one row per leak)",
 "description":"The leak analysis of three dumps A, B, C of one process: the objects new in B (since A) and still alive in C, clustered by the pre-existing object that holds them (the holder: the cache, global or instance variable that leaks). One row per leak, most retained bytes first, with how Ruby reaches the holder (pathNames), its growth A -> B -> C, and what it holds by class and allocation site. What is probably not a leak comes apart in noise, each with a reason. Follow up with path_to_root or inspect_object on the holder.",
 "inputSchema":{"type":"object","required":["baseline","target"],"additionalProperties":false,"properties":{
   "baseline":"@HEAP_A","target":"@HEAP_B","later":"@HEAP_C",
   "limit":"@LIMIT10","offset":"@OFFSET",
   "groupBy":{"type":"string","enum":["class","site","generation"],"default":"class","description":"how each row's objects are grouped"},
   "samples":{"type":"integer","minimum":0,"maximum":20,"default":5,"description":"leaked addresses per row"}}},
 "outputSchema":{"type":"object","required":["leaks","noise","leakCount","noiseCount","total","offset"],"properties":{
   "leaks":{"type":"array","items":{"type":"object","required":["key","signature","count","memsize","retained","pathNames","samples"],"properties":{
     "key":{"type":"string"},"signature":{"type":"string"},"holder":{"anyOf":["@SUMMARY",{"type":"null"}]},
     "reach":{"type":"object"},"growth":{"type":["object","null"]},"count":{"type":"integer"},"memsize":{"type":"integer"},"retained":{"type":"integer"},
     "objects":{"type":"array"},"root":{"type":"string"},"path":{"type":"array","items":{"type":"string"}},
     "pathNames":{"type":"array","items":{"type":"string"}},"samples":{"type":"array","items":{"type":"string"}}}}},
   "noise":{"type":"array","items":{"type":"object","required":["key","reason","why"]}},
   "leakCount":{"type":"integer"},"noiseCount":{"type":"integer"},
   "total":{"type":"object","properties":{"count":{"type":"integer"},"memsize":{"type":"integer"}}},
   "rule":{"type":"string"},"compacted":{"type":"boolean"},"warnings":{"type":"array","items":{"type":"string"}},"target":{"type":"string"},"offset":{"type":"integer"},"nextOffset":"@NEXT",
   "memory":{"type":"object","description":"Where the process's memory went from the first dump to the last (docs/memory.md): RSS growth split into Ruby objects, free heap slots, malloc outside objects, malloc free but held, file-backed, unexplained, with a verdict (rubyHeap, nativeMemory, fragmentation, ...) and what to try. RSS figures need the capture gem's version 2 manifests.","properties":{
     "verdict":{"type":"string"},"verdictText":{"type":"string"},"rssGrowth":{"type":["integer","null"]},
     "parts":{"type":"array","items":{"type":"object"}},"tryNext":{"type":"array","items":{"type":"string"}},"notes":{"type":"array","items":{"type":"string"}}}}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"leak_stats","title":"Leaked objects by class, site or generation",
 "description":"The raw leak diff of find_leaks, without holders: the objects new in target (since baseline) and still alive in later, counted per class (or allocation site, or GC generation), with sample addresses. Quick, and the samples feed common_retainer.",
 "inputSchema":{"type":"object","required":["baseline","target"],"additionalProperties":false,"properties":{
   "baseline":"@HEAP_A","target":"@HEAP_B","later":"@HEAP_C",
   "groupBy":{"type":"string","enum":["class","site","generation"],"default":"class"},
   "limit":"@LIMIT20","offset":"@OFFSET",
   "samples":{"type":"integer","minimum":0,"default":5,"description":"addresses per group"}}},
 "outputSchema":{"type":"object","required":["groups","total","groupCount","offset"],"properties":{
   "groups":{"type":"array","items":{"type":"object","required":["key","count","memsize","samples"],"properties":{
     "key":{"type":"string"},"count":{"type":"integer"},"memsize":{"type":"integer"},"samples":{"type":"array","items":{"type":"string"}},"vmInternal":{"type":"boolean"}}}},
   "total":{"type":"object"},"groupCount":{"type":"integer"},"rule":{"type":"string"},"warnings":{"type":"array","items":{"type":"string"}},"offset":{"type":"integer"},"nextOffset":"@NEXT"}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"common_retainer","title":"What holds these objects",
 "description":"The nearest common retainer of sample objects (e.g. addresses from leak_stats): the one object that holds them all at the least distance, its path from a GC root, and whether the samples sit in different containers (split, groups).",
 "inputSchema":{"type":"object","required":["heap","addresses"],"additionalProperties":false,"properties":{
   "heap":"@HEAP","addresses":{"type":"array","minItems":1,"items":"@ADDRESS"},
   "minSamples":{"type":"integer","minimum":0,"default":0,"description":"a retainer must hold at least this many samples (0: all)"}}},
 "outputSchema":{"type":"object","required":["retainer","samples","unknown"],"properties":{
   "retainer":{"type":["string","null"]},"distance":{"type":"integer"},"samples":{"type":"array","items":{"type":"string"}},
   "unknown":{"type":"array","items":{"type":"string"}},"retainerObject":"@SUMMARY","rootPath":{"type":"object"},
   "split":{"type":"boolean"},"groups":{"type":"array"},"nodes":{"type":"array"},"edges":{"type":"array"},"heap":{"type":"string"}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"owner","title":"Who owns these objects (dominator)",
 "description":"The object that dominates the given objects (every path from a GC root to them passes through it, so freeing it frees them), the bytes it keeps alive (retained), and its path from a GC root.",
 "inputSchema":{"type":"object","required":["heap","addresses"],"additionalProperties":false,"properties":{
   "heap":"@HEAP","addresses":{"type":"array","minItems":1,"items":"@ADDRESS"}}},
 "outputSchema":{"type":"object","required":["owners","objects"],"properties":{
   "owner":{"anyOf":["@SUMMARY",{"type":"null"}]},"owners":{"type":"array"},"objects":{"type":"integer"},
   "unreachable":{"type":"array"},"root":{"type":"string"},"path":{"type":"array","items":{"type":"string"}},"heap":{"type":"string"}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"path_to_root","title":"How a GC root reaches an object",
 "description":"A shortest path from a GC root category (vm, machine_context, global_tbl...) down to the object: the chain of references that keeps it alive.",
 "inputSchema":{"type":"object","required":["heap","address"],"additionalProperties":false,"properties":{"heap":"@HEAP","address":"@ADDRESS"}},
 "outputSchema":{"type":"object","required":["root","path","objects"],"properties":{
   "root":{"type":"string"},"path":{"type":"array","items":{"type":"string"}},"objects":{"type":"array","items":"@SUMMARY"}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"inspect_object","title":"Inspect an object and its neighbours",
 "description":"One object: its summary and its dump record, the objects that reference it (referrers) and those it references (references), a page of each.",
 "inputSchema":{"type":"object","required":["heap","address"],"additionalProperties":false,"properties":{
   "heap":"@HEAP","address":"@ADDRESS",
   "limit":"@LIMIT20",
   "referrersOffset":{"type":"integer","minimum":0,"default":0},"referencesOffset":{"type":"integer","minimum":0,"default":0}}},
 "outputSchema":{"type":"object","required":["object","referrers","references"],"properties":{
   "object":{"type":"object","required":["address","type","name","referrersCount","referencesCount"]},
   "referrers":{"type":"object","required":["total","offset","items"],"properties":{"total":{"type":"integer"},"offset":{"type":"integer"},"nextOffset":{"type":"integer"},"items":{"type":"array","items":"@SUMMARY"}}},
   "references":{"type":"object","required":["total","offset","items"],"properties":{"total":{"type":"integer"},"offset":{"type":"integer"},"nextOffset":{"type":"integer"},"items":{"type":"array","items":"@SUMMARY"}}}}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"top_retainers","title":"What keeps the most memory alive",
 "description":"The objects (or classes) whose retained size, from the dominator tree, is largest in one heap.",
 "inputSchema":{"type":"object","required":["heap"],"additionalProperties":false,"properties":{
   "heap":"@HEAP","groupBy":{"type":"string","enum":["object","class"],"default":"object"},
   "limit":"@LIMIT20","offset":"@OFFSET"}},
 "outputSchema":{"type":"object","required":["heap","reachable","offset"],"properties":{
   "heap":{"type":"string"},"reachable":{"type":"integer"},"unreachable":{"type":"object"},
   "retainers":{"type":"array","items":{"type":"object","required":["address","name","retained"]}},
   "classes":{"type":"array","items":{"type":"object","required":["key","count","retained"]}},"offset":{"type":"integer"},"nextOffset":"@NEXT"}},
 "annotations":{"readOnlyHint":true,"openWorldHint":false}},

{"name":"write_report","title":"Write the leak report as an HTML page",
 "description":"The rows of find_leaks as one self-contained HTML page written to a file, for a person: the dumps, a card per leak (holder, reach, path, growth chart, classes and sites, retained bytes), each leak's retainer graph, a treemap of retained bytes, the rows that are probably not leaks folded away. It opens from disk in any browser and loads nothing from the network. Answers the file's path and a file:// link to hand to the user.",
 "inputSchema":{"type":"object","required":["baseline","target","output"],"additionalProperties":false,"properties":{
   "baseline":"@HEAP_A","target":"@HEAP_B","later":"@HEAP_C",
   "output":{"type":"string","pattern":"[.]html?$","description":"the file to write, ending in .html or .htm (relative to heapleakd's working directory); replaced when it exists"},
   "limit":{"type":"integer","minimum":0,"default":10,"description":"leak rows and noise rows on the page (0: all)"},
   "groupBy":{"type":"string","enum":["class","site","generation"],"default":"class","description":"how each row's objects are grouped"}}},
 "outputSchema":{"type":"object","required":["path","uri","bytes","leakCount","noiseCount"],"properties":{
   "path":{"type":"string"},"uri":{"type":"string"},"bytes":{"type":"integer"},
   "leakCount":{"type":"integer"},"noiseCount":{"type":"integer"},"files":{"type":"object"},
   "warnings":{"type":"array","items":{"type":"string"}},"baseline":{"type":"string"},"target":{"type":"string"},"later":{"type":"string"}}},
 "annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}}
]
)json";

// Replaces every "@NAME" string in `value` by its piece.
void splice(boost::json::value& value, const boost::json::object& pieces) {
  if (value.is_string() && value.get_string().starts_with("@")) {
    value = pieces.at(value.get_string());
  } else if (value.is_object()) {
    for (auto& entry : value.get_object()) splice(entry.value(), pieces);
  } else if (value.is_array()) {
    for (auto& item : value.get_array()) splice(item, pieces);
  }
}

}  // namespace

const boost::json::array& mcp_tool_definitions() {
  static const boost::json::array tools = [] {
    boost::json::value parsed = boost::json::parse(kTools);
    splice(parsed, boost::json::parse(kPieces).as_object());
    return parsed.as_array();
  }();
  return tools;
}

}  // namespace heapleak::daemon
