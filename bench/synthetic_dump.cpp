// heapleak-synth: writes ObjectSpace.dump_all-shaped JSON-lines dumps of any
// size, fast (hundreds of MB/s), with a known leak and its ground truth, so
// benchmarks and tests need not run Ruby for hours. See bench/README.md.
//
//   heapleak-synth --out DIR [--objects N | --bytes SIZE] [--seed S] [--traced]
//                  [--leak-fraction F] [--single] [--leak NAME]...
//
// Writes DIR/A.json, B.json, C.json (or only DIR/B.json with --single) and
// DIR/truth.json: {holder, holderClass, leaked: {count, addresses}, objects,
// leaks: [{holderClass, holder, count}]}. Each --leak NAME is a leak of its
// own: a holder class NAME with its own Hash gaining items (default: one,
// LeakHolder), so a fleet of workers can share some leaks and not others.
//
// The model: a Ruby 3.1 process. Records come page by page (409 slots of
// 40 bytes per 16 KiB page, ~8% of slots free), ascending within a page and
// pages in a shuffled order, like dump_all writes them; ROOT records first. Long-lived application
// "units" (an OBJECT of an app class with strings, an Array, a Hash, sometimes a Struct, a Time, a
// Proc with its iseq/env/ment/callcache, symbols, floats) are the same records at the same
// addresses in all three dumps; registries (Hashes of 1000 units) hang off one global Array. A leak
// holder class, LeakHolder, keeps a Hash in an ivar that gains leak items (a Session OBJECT with
// two strings and a Hash with one string) every iteration; a "request" region is refilled every
// iteration with objects of another type at the same addresses (the address-reuse trap), and some
// transient strings are garbage nobody references. The leak is the iteration-2 items: new in B,
// alive in C, held by LeakHolder's Hash.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace {

// ---- deterministic randomness ------------------------------------------------
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(splitmix(seed) | 1) {}
  std::uint64_t next() {  // xorshift64*
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dULL;
  }
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((next() >> 32) * n) >> 32);
  }
  bool chance(std::uint32_t percent) { return below(100) < percent; }
};

// ---- address space -------------------------------------------------------------
// Each region is its own range of heap pages, so every region's addresses are
// known before it is written.
constexpr std::uint64_t kSlot = 40;
constexpr std::uint64_t kSlotsPerPage = 409;
constexpr std::uint64_t kPageBytes = 0x4000;
constexpr std::uint64_t kClassBase = 0x7f3a10000000ULL;
constexpr std::uint64_t kUnitBase = 0x7f3b00000000ULL;
constexpr std::uint64_t kLeakBase = 0x7f4c00000000ULL;  // + iteration * kLeakStride
constexpr std::uint64_t kLeakStride = 0x100000000ULL;
constexpr std::uint64_t kRequestBase = 0x7f5000000000ULL;
constexpr std::uint64_t kRegistryBase = 0x7f5100000000ULL;

// Ruby walks its heap pages in an order of their own (a Ruby 3.1 dump of
// 63 K objects has ~160 ascending runs, one per page): pages are shuffled
// within groups of 64, so every page is its own run, as in real dumps.
std::uint64_t slot_address(std::uint64_t base, std::uint64_t slot) {
  const std::uint64_t page = slot / kSlotsPerPage;
  const std::uint64_t placed = (page & ~std::uint64_t{63}) | ((page * 37 + 11) & 63);
  return base + placed * kPageBytes + 0x28 + (slot % kSlotsPerPage) * kSlot;
}

// ---- output ----------------------------------------------------------------------
class Out {
 public:
  explicit Out(const std::string& path) : file_(std::fopen(path.c_str(), "wb")), path_(path) {
    if (!file_) {
      std::fprintf(stderr, "heapleak-synth: %s: %s\n", path.c_str(), std::strerror(errno));
      std::exit(3);
    }
    buf_.reserve(kFlush + (1 << 20));
  }
  ~Out() { close(); }
  void close() {
    if (!file_) return;
    flush();
    if (std::fclose(file_) != 0) fail();
    file_ = nullptr;
  }
  std::uint64_t bytes() const { return written_ + buf_.size(); }

  void s(std::string_view text) { buf_.append(text); }
  void c(char ch) { buf_.push_back(ch); }
  void u(std::uint64_t v) {
    char tmp[24];
    char* p = tmp + sizeof tmp;
    do {
      *--p = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    buf_.append(p, tmp + sizeof tmp - p);
  }
  void hex(std::uint64_t v) {  // "0x..." lower case, no leading zeros, quoted
    static const char kDigits[] = "0123456789abcdef";
    char tmp[20];
    char* p = tmp + sizeof tmp;
    do {
      *--p = kDigits[v & 15];
      v >>= 4;
    } while (v);
    buf_.append("\"0x", 3);
    buf_.append(p, tmp + sizeof tmp - p);
    buf_.push_back('"');
  }
  void end_line() {
    buf_.push_back('\n');
    if (buf_.size() >= kFlush) flush();
  }

 private:
  static constexpr std::size_t kFlush = std::size_t{4} << 20;
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) fail();
    written_ += buf_.size();
    buf_.clear();
  }
  [[noreturn]] void fail() {
    std::fprintf(stderr, "heapleak-synth: writing %s: %s\n", path_.c_str(), std::strerror(errno));
    std::exit(3);
  }
  std::FILE* file_;
  std::string path_;
  std::string buf_;
  std::uint64_t written_ = 0;
};

// ---- the classes -------------------------------------------------------------------
// Fixed core classes first, then the application's, then LeakHolder and its Hash.
enum CoreClass : std::uint32_t {
  kBasicObject,
  kObject,
  kModule,
  kClass,
  kString,
  kArray,
  kHash,
  kSymbol,
  kFloat,
  kTime,
  kProc,
  kStruct,
  kSession,
  kLeakHolder,
  kCoreCount
};
const char* const kCoreNames[kCoreCount] = {
    "BasicObject", "Object", "Module", "Class", "String", "Array",   "Hash",
    "Symbol",      "Float",  "Time",   "Proc",  "Struct", "Session", "LeakHolder"};

struct Options {
  std::string out;
  std::uint64_t objects = 0;
  std::uint64_t bytes = 0;
  std::uint64_t seed = 42;
  bool traced = false;
  bool single = false;
  double leak_fraction = 0.01;     // per leak
  std::vector<std::string> leaks;  // holder class names; empty: {"LeakHolder"}
};

struct Layout {
  std::uint32_t app_classes = 0;
  std::uint32_t modules = 0;
  std::uint64_t units = 0;       // decided by dump A (or the single dump)
  std::uint64_t leak_items = 0;  // per iteration
  std::uint64_t request_slots = 0;
};

constexpr std::uint64_t kUnitsPerRegistry = 1000;
constexpr std::uint32_t kLeakItemObjects = 5;  // Session, 2 Strings, Hash, String

class Writer {
 public:
  Writer(const Options& options, Layout& layout, int iteration, Out& out)
      : o_(options), l_(layout), iter_(iteration), out_(out) {}

  std::uint64_t objects() const { return objects_; }
  std::uint64_t class_address(std::uint32_t k) const { return slot_address(kClassBase, k); }
  std::size_t leak_count() const { return o_.leaks.size(); }
  // Leak j's holder Hash (its class's @cache), then the holder classes of
  // leaks 1.. (leak 0's is the core class LeakHolder), after the modules.
  std::uint64_t holder_hash(std::size_t j = 0) const {
    return class_address(class_count() + l_.modules + static_cast<std::uint32_t>(j));
  }
  std::uint32_t holder_class(std::size_t j) const {
    return j == 0 ? kLeakHolder
                  : class_count() + l_.modules + static_cast<std::uint32_t>(leak_count() + j - 1);
  }
  std::uint32_t class_count() const { return kCoreCount + l_.app_classes; }
  std::uint64_t registry_address(std::uint64_t r) const {
    return slot_address(kRegistryBase, 1 + r);
  }
  std::uint64_t top_array() const { return slot_address(kRegistryBase, 0); }
  // Leak item `item` of `iteration` (1-based), object `k` of it.
  static std::uint64_t leak_address(int iteration, std::uint64_t item, std::uint32_t k) {
    return slot_address(kLeakBase + iteration * kLeakStride, item * kLeakItemObjects + k);
  }

  // Writes the whole dump. With a byte or object target and no unit count
  // yet (dump A), units are added until the target is reached.
  void write() {
    write_roots();
    write_classes();
    write_units();
    write_leaks();
    write_requests();
    write_registries();
  }

 private:
  void flags(bool old) {
    if (old)
      out_.s(
          ", \"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, "
          "\"marked\":true}}");
    else
      out_.s(", \"flags\":{\"wb_protected\":true}}");
  }
  void head(std::uint64_t address, const char* type, std::uint64_t klass) {
    out_.s("{\"address\":");
    out_.hex(address);
    out_.s(", \"type\":\"");
    out_.s(type);
    out_.c('"');
    if (klass) {
      out_.s(", \"class\":");
      out_.hex(klass);
    }
    ++objects_;
  }
  void refs(const std::uint64_t* targets, std::size_t n) {
    if (n == 0) return;
    out_.s(", \"references\":[");
    for (std::size_t i = 0; i < n; ++i) {
      if (i) out_.s(", ");
      out_.hex(targets[i]);
    }
    out_.c(']');
  }
  void site(const char* file, std::uint32_t line, const char* method, std::uint32_t generation) {
    if (!o_.traced) return;
    out_.s(", \"file\":\"");
    out_.s(file);
    out_.s("\", \"line\":");
    out_.u(line);
    out_.s(", \"method\":\"");
    out_.s(method);
    out_.s("\", \"generation\":");
    out_.u(generation);
  }
  void memsize(std::uint64_t bytes, bool old = true) {
    out_.s(", \"memsize\":");
    out_.u(bytes);
    flags(old);
    out_.end_line();
  }

  void write_roots() {
    std::uint64_t vm[] = {class_address(kObject), class_address(kBasicObject),
                          class_address(kClass), class_address(kModule)};
    out_.s("{\"type\":\"ROOT\", \"root\":\"vm\"");
    refs(vm, 4);
    out_.s("}");
    out_.end_line();
    std::uint64_t globals[] = {top_array()};
    out_.s("{\"type\":\"ROOT\", \"root\":\"global_tbl\"");
    refs(globals, 1);
    out_.s("}");
    out_.end_line();
    std::uint64_t machine[] = {class_address(kString), class_address(kHash)};
    out_.s("{\"type\":\"ROOT\", \"root\":\"machine_context\"");
    refs(machine, 2);
    out_.s("}");
    out_.end_line();
  }

  void write_classes() {
    const std::uint32_t n = class_count();
    std::vector<std::uint64_t> r;
    for (std::uint32_t k = 0; k < n; ++k) {
      head(class_address(k), "CLASS", class_address(kClass));
      if (k != kBasicObject) {
        const std::uint64_t super = class_address(k == kObject ? kBasicObject : kObject);
        out_.s(", \"superclass\":");
        out_.hex(super);
      }
      out_.s(", \"name\":\"");
      if (k == kLeakHolder) {
        out_.s(o_.leaks.front());
      } else if (k < kCoreCount) {
        out_.s(kCoreNames[k]);
      } else {
        out_.s("App::Model");
        out_.u(k - kCoreCount);
      }
      out_.c('"');
      r.clear();
      if (k != kBasicObject) r.push_back(class_address(k == kObject ? kBasicObject : kObject));
      // Object's constant table holds every named class and module.
      if (k == kObject) {
        for (std::uint32_t j = 0; j < n + l_.modules; ++j)
          if (j != kObject) r.push_back(class_address(j));
        for (std::size_t j = 1; j < leak_count(); ++j) r.push_back(class_address(holder_class(j)));
      }
      if (k == kLeakHolder) r.push_back(holder_hash());  // @cache
      refs(r.data(), r.size());
      memsize(k == kObject ? 9000 : 400 + (k % 7) * 48);
    }
    for (std::uint32_t m = 0; m < l_.modules; ++m) {
      head(class_address(n + m), "MODULE", class_address(kModule));
      out_.s(", \"name\":\"App::Concern");
      out_.u(m);
      out_.c('"');
      memsize(200 + (m % 5) * 40);
    }
    for (std::size_t j = 1; j < leak_count(); ++j) {
      const std::uint64_t super = class_address(kObject);
      head(class_address(holder_class(j)), "CLASS", class_address(kClass));
      out_.s(", \"superclass\":");
      out_.hex(super);
      out_.s(", \"name\":\"");
      out_.s(o_.leaks[j]);
      out_.c('"');
      std::uint64_t cr[] = {super, holder_hash(j)};  // @cache
      refs(cr, 2);
      memsize(400);
    }
    // Each holder's @cache: gains leak items every iteration (size L, 2L, 3L).
    for (std::size_t j = 0; j < leak_count(); ++j) {
      head(holder_hash(j), "HASH", class_address(kHash));
      const std::uint64_t size = l_.leak_items * static_cast<std::uint64_t>(iter_);
      out_.s(", \"size\":");
      out_.u(size);
      r.clear();
      for (int it = 1; it <= iter_; ++it)
        for (std::uint64_t item = 0; item < l_.leak_items; ++item)
          r.push_back(leak_address(it, leak_item(j, item), 0));
      refs(r.data(), r.size());
      site("app/services/leak_holder.rb", 7, "<class:LeakHolder>", 3);
      memsize(size <= 8 ? 168 : 168 + size * 24);
    }
  }
  // Leak j's item `item`: the leaks share each iteration's region, one after another.
  std::uint64_t leak_item(std::size_t j, std::uint64_t item) const {
    return j * l_.leak_items + item;
  }

  // One application unit at slot `slot` of the unit region, `k` its index.
  // Returns the number of slots it used (free ones included).
  std::uint64_t write_unit(std::uint64_t k, std::uint64_t slot) {
    Rng rng(o_.seed * 0x100000001b3ULL ^ k);
    const std::uint64_t start = slot;
    auto take = [&] {
      if (rng.chance(8)) ++slot;  // a free slot: pages are never full
      return slot_address(kUnitBase, slot++);
    };
    const std::uint32_t klass = kCoreCount + rng.below(l_.app_classes);
    const std::uint32_t line = 10 + (klass % 40);
    const std::uint32_t generation = 5 + static_cast<std::uint32_t>(k / 5000);
    char file[48];
    std::snprintf(file, sizeof file, "app/models/model_%u.rb", klass - kCoreCount);

    const std::uint64_t obj = take();
    heads_.push_back(obj);
    const std::uint32_t nstr = 2 + rng.below(4);
    std::uint64_t str[6];
    for (std::uint32_t i = 0; i < nstr; ++i) str[i] = take();
    const std::uint32_t alen = rng.below(6);
    const std::uint64_t arr = take();
    std::uint64_t astr[6];
    for (std::uint32_t i = 0; i < alen; ++i) astr[i] = take();
    const std::uint32_t hsize = 1 + rng.below(4);
    const std::uint64_t hash = take();
    std::uint64_t hstr[8];
    for (std::uint32_t i = 0; i < hsize * 2; ++i) hstr[i] = take();
    const bool has_struct = rng.chance(45);
    const std::uint64_t st = has_struct ? take() : 0;
    const bool has_time = rng.chance(8);
    const std::uint64_t time = has_time ? take() : 0;
    const bool has_proc = rng.chance(30);
    std::uint64_t proc = 0, env = 0, iseq = 0, cc = 0, ment = 0;
    if (has_proc) {
      proc = take();
      env = take();
      iseq = take();
      cc = take();
      ment = take();
    }
    const bool has_sym = rng.chance(5);
    const std::uint64_t sym = has_sym ? take() : 0;
    const std::uint32_t garbage = rng.chance(20) ? 1 + rng.below(3) : 0;

    // The OBJECT: its ivars.
    std::uint64_t r[16];
    std::size_t n = 0;
    for (std::uint32_t i = 0; i < nstr; ++i) r[n++] = str[i];
    r[n++] = arr;
    r[n++] = hash;
    if (st) r[n++] = st;
    if (time) r[n++] = time;
    if (proc) r[n++] = proc;
    head(obj, "OBJECT", class_address(klass));
    out_.s(", \"ivars\":");
    out_.u(n);
    refs(r, n);
    site(file, line, "initialize", generation);
    memsize(n <= 3 ? 40 : 40 + 8 * n);

    auto string = [&](std::uint64_t address, std::uint32_t len, const char* method) {
      head(address, "STRING", class_address(kString));
      static const char kAlpha[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
      char value[64];
      for (std::uint32_t i = 0; i < len; ++i) value[i] = kAlpha[rng.below(38)];
      const bool embedded = len <= 23;
      if (embedded) out_.s(", \"embedded\":true");
      out_.s(", \"bytesize\":");
      out_.u(len);
      out_.s(", \"value\":\"");
      out_.s(std::string_view(value, len));
      out_.c('"');
      site(file, line + 1, method, generation);
      memsize(embedded ? 40 : 40 + len + 1);
    };
    for (std::uint32_t i = 0; i < nstr; ++i) string(str[i], 4 + rng.below(40), "initialize");

    head(arr, "ARRAY", class_address(kArray));
    out_.s(", \"length\":");
    out_.u(alen);
    if (alen <= 3) out_.s(", \"embedded\":true");
    refs(astr, alen);
    site(file, line + 2, "tags", generation);
    memsize(alen <= 3 ? 40 : 40 + 8 * alen);
    for (std::uint32_t i = 0; i < alen; ++i) string(astr[i], 3 + rng.below(12), "tags");

    head(hash, "HASH", class_address(kHash));
    out_.s(", \"size\":");
    out_.u(hsize);
    refs(hstr, hsize * 2);
    site(file, line + 3, "attributes", generation);
    memsize(hsize <= 8 ? 168 : 168 + 24 * hsize);
    for (std::uint32_t i = 0; i < hsize * 2; ++i) string(hstr[i], 3 + rng.below(20), "attributes");

    if (st) {
      std::uint64_t sr[] = {str[0]};
      head(st, "STRUCT", class_address(kStruct));
      refs(sr, 1);
      site(file, line + 4, "to_struct", generation);
      memsize(40);
    }
    if (time) {
      head(time, "DATA", class_address(kTime));
      out_.s(", \"struct\":\"time\"");
      site(file, line + 5, "touch", generation);
      memsize(86);
    }
    if (proc) {
      std::uint64_t pr[] = {env, iseq};
      head(proc, "DATA", class_address(kProc));
      out_.s(", \"struct\":\"proc\"");
      refs(pr, 2);
      site(file, line + 6, "callback", generation);
      memsize(80);
      std::uint64_t er[] = {obj, proc};
      head(env, "IMEMO", 0);
      out_.s(", \"imemo_type\":\"env\"");
      refs(er, 2);
      memsize(80);
      std::uint64_t ir[] = {str[0], cc};
      head(iseq, "IMEMO", 0);
      out_.s(", \"imemo_type\":\"iseq\"");
      refs(ir, 2);
      memsize(600 + rng.below(800));
      std::uint64_t cr[] = {ment};
      head(cc, "IMEMO", class_address(klass));
      out_.s(", \"imemo_type\":\"callcache\"");
      refs(cr, 1);
      memsize(40);
      std::uint64_t mr[] = {class_address(klass), iseq};
      head(ment, "IMEMO", 0);
      out_.s(", \"imemo_type\":\"ment\"");
      refs(mr, 2);
      memsize(48);
    }
    if (sym) {
      head(sym, "SYMBOL", class_address(kSymbol));
      out_.s(", \"frozen\":true, \"bytesize\":9, \"value\":\"sym_");
      out_.u(k % 100000);
      out_.c('"');
      memsize(40);
    }
    // Transient strings nobody holds (garbage not yet swept).
    for (std::uint32_t i = 0; i < garbage; ++i) {
      const std::uint64_t address = take();
      head(address, "STRING", class_address(kString));
      out_.s(", \"embedded\":true, \"bytesize\":5, \"value\":\"tmp");
      out_.u(i);
      out_.s("\"");
      memsize(40, false);
    }
    return slot - start;
  }

  void write_units() {
    std::uint64_t slot = 0;
    const bool deciding = l_.units == 0;
    for (std::uint64_t k = 0;; ++k) {
      if (deciding) {
        if (o_.bytes && out_.bytes() >= o_.bytes) break;
        if (o_.objects && objects_ >= o_.objects) break;
      } else if (k == l_.units) {
        break;
      }
      slot += write_unit(k, slot);
      if (deciding) l_.units = k + 1;
    }
  }

  void write_leaks() {
    for (std::size_t j = 0; j < leak_count(); ++j) write_leak(j);
  }
  void write_leak(std::size_t j) {
    for (int it = 1; it <= iter_; ++it) {
      const std::uint32_t generation = 100 + 10 * it;
      for (std::uint64_t n = 0; n < l_.leak_items; ++n) {
        const std::uint64_t item = leak_item(j, n);
        Rng rng(o_.seed ^ (item * 31 + it) * 0x9e3779b97f4a7c15ULL);
        const std::uint64_t a[kLeakItemObjects] = {
            leak_address(it, item, 0), leak_address(it, item, 1), leak_address(it, item, 2),
            leak_address(it, item, 3), leak_address(it, item, 4)};
        std::uint64_t sr[] = {a[1], a[2], a[3]};
        head(a[0], "OBJECT", class_address(kSession));
        out_.s(", \"ivars\":3");
        refs(sr, 3);
        site("app/services/leak_holder.rb", 21, "remember", generation);
        memsize(40);
        for (int s = 1; s <= 2; ++s) {
          head(a[s], "STRING", class_address(kString));
          out_.s(", \"embedded\":true, \"bytesize\":12, \"value\":\"session-");
          out_.u(1000 + rng.below(9000));
          out_.c('"');
          site("app/services/leak_holder.rb", 21 + s, "remember", generation);
          memsize(40);
        }
        std::uint64_t hr[] = {a[4]};
        head(a[3], "HASH", class_address(kHash));
        out_.s(", \"size\":1");
        refs(hr, 1);
        site("app/services/leak_holder.rb", 24, "remember", generation);
        memsize(168);
        head(a[4], "STRING", class_address(kString));
        out_.s(", \"embedded\":true, \"bytesize\":4, \"value\":\"user\"");
        site("app/services/leak_holder.rb", 24, "remember", generation);
        memsize(40);
      }
    }
  }

  // The last request's objects: the same slots every iteration, filled with
  // another type each time, so B's are new in B and gone (reused) in C.
  void write_requests() {
    static const char* const kTypes[3] = {"STRING", "ARRAY", "HASH"};
    static const std::uint32_t kClasses[3] = {kString, kArray, kHash};
    const std::uint64_t holder = slot_address(kRequestBase, 0);
    // The request object itself is held by the machine context only in its
    // own dump; the rest hang off it.
    for (std::uint64_t s = 0; s < l_.request_slots; ++s) {
      const std::uint32_t t = static_cast<std::uint32_t>((s + iter_) % 3);
      head(slot_address(kRequestBase, s), kTypes[t], class_address(kClasses[t]));
      if (s == 0) {
        out_.s(t == 1 ? ", \"length\":1" : (t == 2 ? ", \"size\":1" : ""));
        if (t != 0 && l_.request_slots > 1) {
          std::uint64_t r[] = {slot_address(kRequestBase, 1)};
          refs(r, 1);
        }
      } else if (t == 0) {
        out_.s(", \"embedded\":true, \"bytesize\":3, \"value\":\"req\"");
      } else {
        out_.s(t == 1 ? ", \"length\":1" : ", \"size\":1");
        std::uint64_t r[] = {s + 1 < l_.request_slots ? slot_address(kRequestBase, s + 1) : holder};
        refs(r, 1);
      }
      site("app/controllers/requests_controller.rb", 5, "call", 100 + 10 * iter_);
      memsize(t == 2 ? 168 : 40, false);
    }
  }

  void write_registries() {
    const std::uint64_t registries = (l_.units + kUnitsPerRegistry - 1) / kUnitsPerRegistry;
    std::vector<std::uint64_t> r;
    r.reserve(registries);
    for (std::uint64_t i = 0; i < registries; ++i) r.push_back(registry_address(i));
    head(top_array(), "ARRAY", class_address(kArray));
    out_.s(", \"length\":");
    out_.u(registries);
    refs(r.data(), r.size());
    memsize(40 + 8 * registries);
    std::vector<std::uint64_t> part;
    for (std::uint64_t i = 0; i < registries; ++i) {
      const std::uint64_t from = i * kUnitsPerRegistry;
      const std::uint64_t to = std::min<std::uint64_t>(from + kUnitsPerRegistry, heads_.size());
      head(registry_address(i), "HASH", class_address(kHash));
      out_.s(", \"size\":");
      out_.u(to - from);
      refs(heads_.data() + from, to - from);
      memsize(168 + 24 * (to - from));
    }
  }

  std::vector<std::uint64_t> heads_;  // each unit's OBJECT, for the registries
  const Options& o_;
  Layout& l_;
  int iter_;
  Out& out_;
  std::uint64_t objects_ = 0;
};

std::uint64_t parse_size(const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  std::uint64_t mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1ULL << 10;
  if (*end == 'M' || *end == 'm') mul = 1ULL << 20;
  if (*end == 'G' || *end == 'g') mul = 1ULL << 30;
  if (end == text || v <= 0) {
    std::fprintf(stderr, "heapleak-synth: bad size '%s'\n", text);
    std::exit(2);
  }
  return static_cast<std::uint64_t>(v * static_cast<double>(mul));
}

[[noreturn]] void usage() {
  std::fprintf(
      stderr,
      "usage: heapleak-synth --out DIR [--objects N | --bytes SIZE(K|M|G)] [--seed S]\n"
      "                      [--traced] [--leak-fraction F] [--single] [--leak NAME]...\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--out")
      o.out = value();
    else if (a == "--objects")
      o.objects = parse_size(value());
    else if (a == "--bytes")
      o.bytes = parse_size(value());
    else if (a == "--seed")
      o.seed = std::strtoull(value(), nullptr, 10);
    else if (a == "--traced")
      o.traced = true;
    else if (a == "--single")
      o.single = true;
    else if (a == "--leak-fraction")
      o.leak_fraction = std::strtod(value(), nullptr);
    else if (a == "--leak")
      o.leaks.push_back(value());
    else
      usage();
  }
  if (o.out.empty() || (o.objects == 0 && o.bytes == 0)) usage();
  if (o.leaks.empty()) o.leaks.push_back(kCoreNames[kLeakHolder]);
  for (const auto& name : o.leaks) {
    // A Ruby constant name, so the dump's JSON needs no escaping.
    const bool constant =
        !name.empty() && name[0] >= 'A' && name[0] <= 'Z' &&
        std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
        });
    if (!constant || o.leaks.size() > 16) {
      std::fprintf(stderr, "heapleak-synth: --leak takes a class name (at most 16 leaks)\n");
      return 2;
    }
  }
  if (o.leak_fraction < 0 || o.leak_fraction > 0.5) {
    std::fprintf(stderr, "heapleak-synth: --leak-fraction must be within 0..0.5\n");
    return 2;
  }
  // ~12 objects and ~3.4 KB per unit (traced ~4.6 KB): enough to size the
  // classes and the leak before the first unit is written.
  const double unit_bytes = o.traced ? 4600.0 : 3400.0;
  const double units_guess = o.objects ? o.objects / 12.0 : o.bytes / unit_bytes;
  Layout l;
  l.app_classes = static_cast<std::uint32_t>(std::min(20000.0, std::max(20.0, units_guess / 50)));
  l.modules = l.app_classes / 8;
  l.leak_items = static_cast<std::uint64_t>(units_guess * 12 * o.leak_fraction / kLeakItemObjects);
  if (o.leak_fraction > 0 && l.leak_items == 0) l.leak_items = 1;
  l.request_slots = std::max<std::uint64_t>(3, static_cast<std::uint64_t>(units_guess / 20));

  std::error_code made;
  std::filesystem::create_directories(o.out, made);
  if (made) {
    std::fprintf(stderr, "heapleak-synth: %s: %s\n", o.out.c_str(), made.message().c_str());
    return 3;
  }
  const auto started = std::chrono::steady_clock::now();
  std::uint64_t total_bytes = 0, objects_b = 0;
  const char* names[3] = {"A.json", "B.json", "C.json"};
  for (int iter = o.single ? 2 : 1; iter <= (o.single ? 2 : 3); ++iter) {
    Out out(o.out + "/" + names[iter - 1]);
    Writer w(o, l, iter, out);
    w.write();
    out.close();
    total_bytes += out.bytes();
    if (iter == 2) objects_b = w.objects();
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Ground truth.
  const std::string truth_path = o.out + "/truth.json";
  std::FILE* t = std::fopen(truth_path.c_str(), "wb");
  if (!t) {
    std::perror(truth_path.c_str());
    return 3;
  }
  std::fprintf(t,
               "{\"generator\":\"heapleak-synth\",\"seed\":%" PRIu64
               ",\"traced\":%s,\"single\":%s,\"objects\":{\"B\":%" PRIu64 "},\"units\":%" PRIu64
               ",\"holder\":{\"address\":\"0x%" PRIx64
               "\",\"type\":\"HASH\",\"reach\":\"LeakHolder\"},\"leaked\":{\"count\":%" PRIu64
               ",\"class\":\"Session\",\"addresses\":[",
               o.seed, o.traced ? "true" : "false", o.single ? "true" : "false", objects_b, l.units,
               slot_address(kClassBase, kCoreCount + l.app_classes + l.modules),
               l.leak_items * kLeakItemObjects);
  for (std::uint64_t item = 0; item < l.leak_items; ++item)
    for (std::uint32_t k = 0; k < kLeakItemObjects; ++k)
      std::fprintf(t, "%s\"0x%" PRIx64 "\"", item || k ? "," : "",
                   Writer::leak_address(2, item, k));
  // bench/run.sh reads root.samples (as in leakgen.rb's truth.json): a few
  // leaked Session objects whose nearest common retainer is the holder.
  std::fprintf(
      t, "]},\"root\":{\"dump\":\"B\",\"retainer\":{\"address\":\"0x%" PRIx64 "\"},\"samples\":[",
      slot_address(kClassBase, kCoreCount + l.app_classes + l.modules));
  const std::uint64_t samples = std::min<std::uint64_t>(4, l.leak_items);
  for (std::uint64_t k = 0; k < samples; ++k) {
    const std::uint64_t item = k * (l.leak_items / samples);
    std::fprintf(t, "%s\"0x%" PRIx64 "\"", k ? "," : "", Writer::leak_address(2, item, 0));
  }
  std::fprintf(t, "]},\"leaks\":[");
  for (std::size_t j = 0; j < o.leaks.size(); ++j)
    std::fprintf(t, "%s{\"holderClass\":\"%s\",\"holder\":\"0x%" PRIx64 "\",\"count\":%" PRIu64 "}",
                 j ? "," : "", o.leaks[j].c_str(),
                 slot_address(kClassBase, kCoreCount + l.app_classes + l.modules +
                                              static_cast<std::uint32_t>(j)),
                 l.leak_items * kLeakItemObjects);
  std::fprintf(t, "]}\n");
  std::fclose(t);
  std::fprintf(stderr, "heapleak-synth: %" PRIu64 " objects in B, %.0f MB in %.1f s (%.0f MB/s)\n",
               objects_b, total_bytes / 1e6, secs, total_bytes / 1e6 / secs);
  return 0;
}
