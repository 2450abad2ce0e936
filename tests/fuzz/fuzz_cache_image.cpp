// libFuzzer target: a cache image and its analyses file (core/images/heap_image_reader.h,
// core/images/analyses_image.h) as someone who may write the cache directory could
// forge them: values changed anywhere, every checksum recomputed
// (tests/support/image_forge.h). Byte 0 bit 0 picks the file changed (the
// heap image or the analyses); then records of 9 bytes: a section (byte,
// modulo the section count), a byte offset in it (4 bytes, modulo its size)
// and 4 bytes written there. The readers must refuse the file or give a heap
// and analyses whose every accessor and walk stays in bounds and ends.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "core/graph/dominators.h"
#include "core/graph/root_paths.h"
#include "core/images/analyses_image.h"
#include "core/images/heap_image_reader.h"
#include "core/images/heap_image_writer.h"
#include "core/loading/loader.h"
#include "fuzz_check.h"
#include "memfd_file.h"
#include "tests/support/image_forge.h"

namespace image = heapleak::image;

namespace {

// Classes, strings with allocation info, an array, roots of two categories,
// a chain and an unreachable object: every section has values.
constexpr const char* kDump =
    R"({"type":"ROOT","root":"vm","references":["0x10","0x20"]}
{"type":"ROOT","root":"global_tbl","references":["0x50"]}
{"address":"0x10","type":"CLASS","name":"Foo","references":["0x20"],"memsize":40}
{"address":"0x20","type":"OBJECT","class":"0x10","references":["0x30","0x50"],"memsize":40,"file":"a.rb","line":3,"method":"m","generation":5}
{"address":"0x30","type":"STRING","class":"0x40","value":"hi","memsize":40,"file":"b.rb","line":9,"method":"n","generation":6}
{"address":"0x40","type":"CLASS","name":"String","memsize":40}
{"address":"0x50","type":"ARRAY","class":"0x60","length":2,"references":["0x20","0x30","0x70"],"memsize":80}
{"address":"0x60","type":"CLASS","name":"Array","memsize":40}
{"address":"0x70","type":"HASH","class":"0x10","size":1,"references":["0x30"],"memsize":160}
{"address":"0x80","type":"DATA","struct":"iseq","memsize":64}
)";

struct Pristine {
  std::string dir;
  image::ImageKey key;
  std::string image;     // the image's bytes
  std::string analyses;  // the analyses' bytes
};

const Pristine& pristine() {
  static const Pristine made = [] {
    Pristine p;
    char dir[] = "/tmp/heapleak-fuzz-cache-XXXXXX";
    FUZZ_CHECK(::mkdtemp(dir) != nullptr, "mkdtemp");
    p.dir = dir;
    MemfdFile dump(kDump, std::strlen(kDump));
    auto loaded = heapleak::load_heap(dump.path());
    FUZZ_CHECK(loaded && *loaded, "the seed dump loads");
    const heapleak::Heap& heap = **loaded;
    heap.root_paths();
    heap.dominators();
    p.key.path = "/fuzz/dump.json";
    p.key.identity = heap.report().identity;
    std::uint64_t checksum = 0;
    const std::string image_path = p.dir + "/seed.hlimg";
    FUZZ_CHECK(!heapleak::image::write_heap_image(heap, p.key, image_path, &checksum),
               "the seed image is written");
    unsigned kept = 0;
    const std::string analyses_path = p.dir + "/seed.hlana";
    FUZZ_CHECK(!heapleak::image::write_analyses_image(heap, checksum, analyses_path, kept),
               "the seed analyses are written");
    p.image = heapleak::test::read_whole(image_path);
    p.analyses = heapleak::test::read_whole(analyses_path);
    ::unlink(image_path.c_str());
    ::unlink(analyses_path.c_str());
    return p;
  }();
  return made;
}

void mutate(std::string& bytes, const std::uint8_t* data, std::size_t size) {
  image::Header header;
  std::memcpy(&header, bytes.data(), sizeof header);
  auto* table = reinterpret_cast<image::Section*>(bytes.data() + sizeof header);
  for (; size >= 9; data += 9, size -= 9) {
    const image::Section& s = table[data[0] % header.section_count];
    if (s.bytes == 0) continue;
    std::uint32_t at;
    std::memcpy(&at, data + 1, 4);
    const std::uint64_t offset = at % s.bytes;
    const std::uint64_t n = std::min<std::uint64_t>(4, s.bytes - offset);
    std::memcpy(bytes.data() + s.offset + offset, data + 5, n);
  }
  heapleak::test::forge_checksums(bytes);
}

// Every accessor and walk over the opened heap and analyses.
void exercise(const heapleak::Heap& heap) {
  using heapleak::ObjectIndex;
  std::uint64_t sink = 0;
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    sink += heap.own_name(i).size() + heap.class_name(i).size() + heap.file(i).size() +
            heap.method(i).size() + heap.line(i) + heap.memsize(i);
    for (ObjectIndex r : heap.references(i)) sink += heap.address(r);
    for (ObjectIndex r : heap.referrers(i)) sink += heap.address(r);
    FUZZ_CHECK(heap.find(heap.address(i)) == i, "an object is found by its address");
  }
  if (!heap.has_edges()) return;
  const heapleak::RootPaths& paths = heap.root_paths();
  const heapleak::DominatorTree& tree = heap.dominators();
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    heapleak::RootPath path = paths.path_to(heap, i);
    sink += path.path.size() + path.root.size();
    sink += tree.retained(i) + tree.dominates(i, (i + 1) % heap.size());
    const ObjectIndex pair[2] = {i, static_cast<ObjectIndex>(heap.size() - 1 - i)};
    sink += tree.common_dominator(pair);
  }
  FUZZ_CHECK(sink != 1, "kept");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 4096) return 0;
  const Pristine& seed = pristine();
  std::string image_bytes = seed.image;
  std::string analyses_bytes = seed.analyses;
  mutate((data[0] & 1) == 0 ? image_bytes : analyses_bytes, data + 1, size - 1);
  const std::string image_path = seed.dir + "/" + std::to_string(::getpid()) + ".hlimg";
  const std::string analyses_path = seed.dir + "/" + std::to_string(::getpid()) + ".hlana";
  heapleak::test::write_whole(image_path, image_bytes);
  heapleak::test::write_whole(analyses_path, analyses_bytes);
  image::OpenedAnalyses analyses;
  image::OpenedImage opened = image::open_heap_image(
      image_path, seed.key,
      [&](heapleak::LoadReport& report, std::uint64_t checksum, std::size_t root_categories) {
        analyses =
            image::open_analyses_image(analyses_path, report.objects, root_categories, checksum);
      });
  ::unlink(image_path.c_str());
  ::unlink(analyses_path.c_str());
  if (opened.problem != image::ImageProblem::kNone) {
    FUZZ_CHECK(!opened.why.empty(), "a refused image says why");
    return 0;
  }
  if (analyses.root_paths) opened.heap->seed_root_paths(std::move(analyses.root_paths));
  if (analyses.dominators) opened.heap->seed_dominators(std::move(analyses.dominators));
  exercise(*opened.heap);
  return 0;
}
