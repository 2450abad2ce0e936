#include "core/diagnosis/streamed_counterparts.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/heap/column_values.h"
#include "core/loading/loader.h"
#include "core/reading/byte_source.h"
#include "core/reading/line_pipeline.h"
#include "core/reading/mapped_reads.h"
#include "core/reading/record_parser.h"

namespace heapleak {
namespace {

bool agree_when_both(std::uint32_t a, std::uint32_t b) { return a == 0 || b == 0 || a == b; }
bool one_sided(std::uint32_t a, std::uint32_t b) { return (a == 0) != (b == 0); }

// B's index of an address, for records that mostly come in ascending runs
// (a heap page at a time): gallops from the last answer instead of a
// binary search over all of B each time.
class AddressCursor {
 public:
  explicit AddressCursor(const Heap& heap) : heap_(heap) {}
  std::optional<ObjectIndex> find(Address address) {
    const std::size_t n = heap_.size();
    if (n == 0) return std::nullopt;
    std::size_t lo, hi;
    if (heap_.address(at_) <= address) {
      lo = at_;
      std::size_t step = 1;
      hi = at_ + 1;
      while (hi < n && heap_.address(hi) <= address) {
        lo = hi;
        hi = std::min(n, hi + step);
        step *= 2;
      }
    } else {
      hi = at_;
      std::size_t step = 1;
      lo = at_ >= 1 ? at_ - 1 : 0;
      while (lo > 0 && heap_.address(lo) > address) {
        hi = lo;
        lo = lo >= step ? lo - step : 0;
        step *= 2;
      }
    }
    // The last index in [lo, hi] whose address is <= address.
    const auto& column = heap_.columns().address;
    auto it = std::upper_bound(column.begin() + lo, column.begin() + std::min(hi + 1, n), address);
    if (it == column.begin()) return std::nullopt;
    const auto k = static_cast<std::size_t>(it - column.begin()) - 1;
    at_ = k;
    if (heap_.address(k) != address) return std::nullopt;
    return static_cast<ObjectIndex>(k);
  }

 private:
  const Heap& heap_;
  std::size_t at_ = 0;
};

class CounterpartStream {
 public:
  CounterpartStream(const Heap& target, const StreamOptions& options)
      : b_(target), c_(target.columns()), options_(options), cursor_(target) {
    out_.flags.assign(target.size(), 0);
  }

  void take(const DumpRecord& record) {
    const auto i = cursor_.find(record.address);
    // A class's name is its record's own name (Heap::class_name), when the
    // record is class-like (HeapBuilder::resolve_classes): kept for those.
    // Interned: classes share few distinct names.
    if (!record.own_name.empty() && is_class_like(record.type)) {
      auto [it, inserted] = name_ids_.try_emplace(std::string(record.own_name),
                                                  static_cast<std::uint32_t>(names_.size()));
      if (inserted) names_.push_back(it->first);
      own_names_.emplace_back(record.address, it->second);
    }
    if (record.has_generation || record.has_line || !record.file.empty()) traced_ = true;
    if (record.has_generation) generations_ = true;
    if (const std::uint64_t page = record.address >> kHeapPageShift; page != last_page_) {
      out_.dump.pages.push_back(page);
      last_page_ = page;
    }
    const std::uint32_t memsize = saturate32(record.memsize);
    const std::uint32_t generation = believed_generation(record);
    if (!i) {
      elsewhere_.push_back({record.address, memsize, generation, record.type});
      return;
    }
    if (out_.flags[*i] & Counterparts::kPresent) {
      ++duplicates_;  // the first record at an address is the object (address_sort.h)
      return;
    }
    count(record.type, memsize, generation);
    out_.flags[*i] = flags_of(*i, record);
    const std::uint32_t own = identity_length(c_.type[*i], c_.length[*i]);
    const std::uint32_t theirs = length_column_value(record, false);
    if (own != theirs || c_.memsize[*i] != memsize)
      out_.changed.emplace(*i, Counterparts::Sizes{theirs, memsize});
  }

  Counterparts finish(LoadReport report) {
    // Objects at addresses B does not have: counted once each, as the
    // first record at the address (stable: records stay in file order).
    std::stable_sort(elsewhere_.begin(), elsewhere_.end(),
                     [](const auto& x, const auto& y) { return x.address < y.address; });
    for (std::size_t k = 0; k < elsewhere_.size(); ++k) {
      if (k > 0 && elsewhere_[k].address == elsewhere_[k - 1].address) {
        ++duplicates_;
        continue;
      }
      count(elsewhere_[k].type, elsewhere_[k].memsize, elsewhere_[k].generation);
    }
    elsewhere_ = {};
    settle_class_names();
    settle_pages(out_.dump.pages);
    DumpSummary& dump = out_.dump;
    // Heap::has_generation: a generation column, sites trusted on some.
    if (!generations_ || options_.sites_from == Heap::kNoSites) dump.newest_generation = 0;
    report.objects = dump.objects;
    report.duplicate_addresses = duplicates_;
    report.traced = traced_;
    report.edges_built = false;
    dump.traced = traced_ && options_.sites_from != Heap::kNoSites;
    IdentityRule rule;
    rule.allocation_site = b_.has_allocation_info() && dump.traced;
    rule.generation = b_.has_generation() && dump.traced;
    rule.contents = !rule.generation;
    out_.rule = rule;
    dump.report = std::move(report);
    return std::move(out_);
  }

 private:
  struct Elsewhere {
    Address address;
    std::uint32_t memsize;
    std::uint32_t generation;  // believed_generation
    ObjectType type;
  };

  // Heap::generation + 1 of the record's object (0: none, or not believed).
  std::uint32_t believed_generation(const DumpRecord& r) const {
    if (!r.has_generation) return 0;
    const std::uint32_t raw = saturate32(r.generation + 1) - 1;
    if (options_.sites_from == Heap::kNoSites) return 0;
    if (options_.sites_from != 0 && raw < options_.sites_from) return 0;
    return raw + 1;
  }

  // One object (the first record at its address) into the dump's summary.
  void count(ObjectType type, std::uint32_t memsize, std::uint32_t generation) {
    DumpSummary& dump = out_.dump;
    ++dump.objects;
    ++dump.by_type[static_cast<std::size_t>(type)];
    dump.bytes += memsize;
    if (generation != 0) dump.newest_generation = std::max(dump.newest_generation, generation - 1);
  }

  static std::uint32_t column_at(const Column<std::uint32_t>& column, ObjectIndex k) {
    return column.empty() ? 0 : column[k];
  }
  std::string_view b_name(std::uint32_t id) const { return c_.names.at(id); }

  // The rule's tests (identity.cpp's same_identity) but the class name's,
  // for both rules; the class-name test is settled at the end.
  std::uint8_t flags_of(ObjectIndex i, const DumpRecord& r) {
    std::uint8_t f = Counterparts::kPresent;
    const std::uint32_t generation = r.has_generation ? saturate32(r.generation + 1) : 0;
    const std::uint32_t line = saturate32(r.line);
    const std::uint32_t first_ref = r.references.empty() ? 0 : address_fingerprint(r.references[0]);
    const bool same_type = c_.type[i] == r.type;
    const bool same_own = b_name(c_.own_name[i]) == r.own_name;
    const bool contents = agree_when_both(c_.value_hash[i], r.value_hash) &&
                          agree_when_both(c_.first_ref[i], first_ref);
    // Untraced rule: type, contents, own name.
    if (same_type && contents && same_own) f |= Counterparts::kSameIfUntraced;
    // Traced rule: generation, then site, then contents where the generation is absent.
    {
      const std::uint32_t b_generation = column_at(c_.generation, i);
      const bool by_contents = b_generation == 0;
      const bool site = column_at(c_.line, i) == line && b_name(column_at(c_.file, i)) == r.file;
      if (same_type && b_generation == generation && site && (!by_contents || contents) && same_own)
        f |= Counterparts::kSameIfTraced;
    }
    if (one_sided(c_.value_hash[i], r.value_hash) || one_sided(c_.first_ref[i], first_ref))
      f |= Counterparts::kOneSidedContents;
    if (c_.type[i] == ObjectType::kString && c_.value_hash[i] == 0 && r.value_hash != 0) {
      const auto refs = b_.references(i);
      if (refs.size() == 1 && c_.type[refs[0]] == ObjectType::kString &&
          c_.value_hash[refs[0]] != 0 && c_.value_hash[refs[0]] != r.value_hash)
        f |= Counterparts::kSharedElsewhere;
    }
    // same_container: type, class name (below), generation where both are believed.
    const auto b_gen = b_.generation(i);
    const bool other_gen_believed =
        generation != 0 && (options_.sites_from == 0 || (options_.sites_from != Heap::kNoSites &&
                                                         generation - 1 >= options_.sites_from));
    const std::optional<std::uint32_t> o_gen =
        other_gen_believed ? std::optional<std::uint32_t>(generation - 1) : std::nullopt;
    if (same_type && (!b_gen || !o_gen || *b_gen == *o_gen)) f |= Counterparts::kSameContainer;
    if (c_.type[i] == ObjectType::kData && b_.class_name(i) == "Thread" &&
        r.type == ObjectType::kData)
      f |= Counterparts::kSameThread;
    if (c_.first_ref[i] == first_ref) f |= Counterparts::kFirstRefEqual;
    // The class name: B's class at the same address is the usual case, settled
    // per class; another address is kept with the object.
    // Before Ruby 3.3 an IMEMO's `class` field can be junk: a load ignores it.
    const Address their_class = r.type == ObjectType::kImemo ? 0 : r.class_address;
    const ObjectIndex klass = c_.class_index[i];
    if (klass == kNoObject ? their_class != 0 : b_.address(klass) != their_class)
      other_class_.emplace_back(i, their_class);
    return f;
  }

  // Clears the tests that need the class name where the other dump names
  // another class than B: same_object (but for IMEMO), same_container, same_thread.
  void settle_class_names() {
    // The first record at an address is the object (address_sort.h).
    std::stable_sort(own_names_.begin(), own_names_.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    // No class-like record there, or one without a name: "" (Heap::class_name).
    auto name_of = [&](Address address) -> std::string_view {
      if (address == 0) return {};
      const auto it = std::lower_bound(own_names_.begin(), own_names_.end(), address,
                                       [](const auto& x, Address a) { return x.first < a; });
      if (it == own_names_.end() || it->first != address) return {};
      return names_[it->second];
    };
    auto clear = [&](ObjectIndex i) {
      std::uint8_t& f = out_.flags[i];
      if (c_.type[i] != ObjectType::kImemo)
        f &= ~(Counterparts::kSameIfTraced | Counterparts::kSameIfUntraced);
      f &= ~(Counterparts::kSameContainer | Counterparts::kSameThread);
    };
    std::sort(other_class_.begin(), other_class_.end());
    std::size_t next = 0;
    std::unordered_map<ObjectIndex, bool> class_agrees;  // by B's class index
    for (ObjectIndex i = 0; i < b_.size(); ++i) {
      if (!(out_.flags[i] & Counterparts::kPresent)) continue;
      if (next < other_class_.size() && other_class_[next].first == i) {
        if (name_of(other_class_[next].second) != b_.class_name(i)) clear(i);
        ++next;
        continue;
      }
      const ObjectIndex klass = c_.class_index[i];
      if (klass == kNoObject) continue;  // no class on either side: the same ""
      auto [it, inserted] = class_agrees.try_emplace(klass, true);
      if (inserted) it->second = name_of(b_.address(klass)) == b_.class_name(i);
      if (!it->second) clear(i);
    }
  }

  const Heap& b_;
  const HeapColumns& c_;
  StreamOptions options_;
  AddressCursor cursor_;
  Counterparts out_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::vector<std::string_view> names_;  // keys of name_ids_ (stable: node-based)
  std::vector<std::pair<Address, std::uint32_t>> own_names_;
  std::vector<Elsewhere> elsewhere_;
  std::vector<std::pair<ObjectIndex, Address>> other_class_;
  std::uint64_t duplicates_ = 0;
  bool traced_ = false;
  bool generations_ = false;
  std::uint64_t last_page_ = UINT64_MAX;
};

void note_broken_line(LoadReport& report, const char* reason) {
  ++report.broken_lines;
  if (report.first_broken_lines.size() < LoadReport::kMaxBrokenListed) {
    report.first_broken_lines.push_back(report.lines);
    report.first_broken_reasons.emplace_back(reason ? reason : "unparsable");
  }
}

}  // namespace

Result<Counterparts> stream_counterparts(const Heap& target, const std::string& path,
                                         const StreamOptions& options) {
  auto source = open_byte_source(path);
  if (!source) return source.error();  // it names the file, as a load's does
  LoadReport report;
  report.path = path;
  report.file_bytes = (*source)->file_size();
  report.gzip = (*source)->compressed();
  report.identity = (*source)->identity();
  // Blocks of 1 MiB, not a load's 4: two streams run beside B's analyses,
  // and their three blocks each are resident (a mapped file's pages too).
  LinePipeline pipeline(std::move(*source), options.cancel, std::size_t{1} << 20);
  RecordParser parser(LoadMode::kIdentityOnly);
  DumpRecord record;
  CounterpartStream stream(target, options);
  std::uint64_t non_blank = 0;
  for (;;) {
    auto block = pipeline.next();
    if (!block) break;
    for (std::uint32_t k = 0; k < block->long_lines_before; ++k) {
      ++report.lines;
      ++report.long_lines;
      ++non_blank;
      note_broken_line(report, "line longer than the line cap, skipped");
    }
    const char* const base = block->data();
    const char* const end = base + block->size;
    const char* const buffer_end = base + block->readable();
    auto take_lines = [&] {
      for (const char* line = base; line < end;) {
        const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
        const char* line_end = newline ? newline : end;
        ++report.lines;
        parser.parse(line, line_end - line, buffer_end - line, record);
        switch (record.kind) {
          case RecordKind::kObject:
            stream.take(record);
            break;
          case RecordKind::kRoot:
            ++report.root_records;
            break;
          case RecordKind::kShape:
            ++report.shapes;
            break;
          case RecordKind::kBroken:
            note_broken_line(report, record.broken_reason);
            break;
          case RecordKind::kBlank:
            break;
        }
        if (record.kind != RecordKind::kBlank) ++non_blank;
        line = line_end + 1;
      }
    };
    if (block->mapped == nullptr) {
      take_lines();
    } else if (!read_mapped(base, buffer_end, take_lines)) {
      pipeline.fail(make_error(ErrorReason::kNotReadable, LinePipeline::kFileCutShort));
      pipeline.recycle(std::move(block));
      break;
    }
    report.stream_bytes = block->stream_offset + block->size;
    pipeline.recycle(std::move(block));
    if (options.progress) options.progress(pipeline.file_bytes_consumed(), pipeline.file_size());
  }
  if (options.cancel && options.cancel->load())
    return make_error(ErrorReason::kCancelled, "reading " + path + " cancelled");
  if (auto error = pipeline.error()) return make_error(error->reason, path + ": " + error->message);
  report.ends_mid_line = pipeline.ends_mid_line();
  report.gzip_truncated = pipeline.truncated();
  Counterparts out = stream.finish(std::move(report));
  if (auto none = no_heap_records(path, out.dump.objects, out.dump.report, non_blank)) return *none;
  return out;
}

}  // namespace heapleak
