#include "core/graph/dominators.h"

#include <catch2/catch.hpp>
#include <random>

#include "tests/core/test_dump.h"

using namespace heapleak;
using namespace heapleak::test;

namespace {

struct Graph {
  int n = 0;
  std::vector<std::vector<int>> edges;
  std::vector<std::vector<int>> roots;  // per category
  std::vector<int> memsize;
  std::vector<int> klass;  // per vertex, the vertex that is its class (-1: none); empty: none
};

std::string addr(int v) { return format_address(0x1000 + 0x28 * static_cast<Address>(v)); }

std::shared_ptr<const Heap> to_heap(const Graph& g) {
  std::vector<std::string> lines;
  const char* names[] = {"vm", "global_tbl", "machine_context"};
  for (std::size_t c = 0; c < g.roots.size(); ++c) {
    std::vector<std::string> targets;
    for (int v : g.roots[c]) targets.push_back(addr(v));
    lines.push_back(root_line(names[c % 3], targets));
  }
  for (int v = 0; v < g.n; ++v) {
    std::vector<std::string> refs;
    for (int w : g.edges[v]) refs.push_back(addr(w));
    // With classes, every vertex is a CLASS record so that any may be another's class.
    const bool classes = !g.klass.empty();
    const std::string klass = classes && g.klass[v] >= 0 ? addr(g.klass[v]) : "";
    lines.push_back(object_line({addr(v), classes ? "CLASS" : "ARRAY", klass, refs,
                                 "\"memsize\":" + std::to_string(g.memsize[v])}));
  }
  return load_text(join_lines(lines));
}

// Objects reachable from the roots when `removed` is taken out (-1: none).
std::vector<bool> reachable_without(const Graph& g, int removed) {
  std::vector<bool> seen(g.n, false);
  std::vector<int> stack;
  for (const auto& category : g.roots) {
    for (int v : category) {
      if (v != removed && !seen[v]) {
        seen[v] = true;
        stack.push_back(v);
      }
    }
  }
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    std::vector<int> next = g.edges[v];
    if (!g.klass.empty() && g.klass[v] >= 0) next.push_back(g.klass[v]);
    for (int w : next) {
      if (w != removed && !seen[w]) {
        seen[w] = true;
        stack.push_back(w);
      }
    }
  }
  return seen;
}

// Checks idom and retained of every object against the definition.
void check_against_brute_force(const Graph& g) {
  auto heap = to_heap(g);
  const DominatorTree& tree = heap->dominators();
  const auto reach = reachable_without(g, -1);
  // dominators[w] = {v : removing v makes w unreachable}
  std::vector<std::vector<bool>> dominates(g.n, std::vector<bool>(g.n, false));
  for (int v = 0; v < g.n; ++v) {
    const auto without = reachable_without(g, v);
    for (int w = 0; w < g.n; ++w) dominates[v][w] = reach[w] && (w == v || !without[w]);
  }
  for (int w = 0; w < g.n; ++w) {
    const ObjectIndex iw = heap->find(0x1000 + 0x28 * w).value();
    INFO("object " << w);
    REQUIRE(tree.reachable(iw) == reach[w]);
    if (!reach[w]) {
      CHECK(tree.idom(iw) == kNoObject);
      continue;
    }
    // idom: the strict dominator that every other strict dominator dominates.
    int expected = -1;
    for (int v = 0; v < g.n; ++v) {
      if (v == w || !dominates[v][w]) continue;
      bool deepest = true;
      for (int u = 0; u < g.n; ++u) {
        if (u != w && u != v && dominates[u][w] && !dominates[u][v]) deepest = false;
      }
      if (deepest) expected = v;
    }
    const ObjectIndex got = tree.idom(iw);
    if (expected < 0) {
      CHECK(got == DominatorTree::kSuperRoot);
    } else {
      REQUIRE(got != DominatorTree::kSuperRoot);
      CHECK(heap->address(got) == 0x1000 + 0x28 * static_cast<Address>(expected));
    }
    std::uint64_t retained = 0;
    for (int u = 0; u < g.n; ++u) {
      if (dominates[w][u]) retained += g.memsize[u];
    }
    CHECK(tree.retained(iw) == retained);
  }
}

Graph random_graph(std::mt19937& rng, int n, double density, int categories) {
  Graph g;
  g.n = n;
  g.edges.resize(n);
  g.memsize.resize(n);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<int> pick(0, n - 1);
  for (int v = 0; v < n; ++v) {
    g.memsize[v] = 40 + 8 * pick(rng);
    for (int w = 0; w < n; ++w) {
      if (coin(rng) < density) g.edges[v].push_back(w);  // self-loops and cycles included
    }
  }
  g.roots.resize(categories);
  for (auto& category : g.roots) {
    const int targets = 1 + pick(rng) % 3;
    for (int k = 0; k < targets; ++k) category.push_back(pick(rng));
  }
  return g;
}

// An independent algorithm to compare with on heaps too big for the brute
// force: Cooper, Harvey and Kennedy's iterative one (intersect the
// dominators of the predecessors in reverse postorder until nothing
// changes), over the same super-root. Slow (quadratic at worst), simple.
struct Reference {
  std::vector<ObjectIndex> idom;  // kSuperRoot, or kNoObject when unreachable
  std::vector<std::uint64_t> retained;
};

Reference reference_dominators(const Heap& heap) {
  const std::size_t n = heap.size();
  const std::size_t root = n;  // the super-root's vertex
  std::vector<std::vector<ObjectIndex>> children(n + 1);
  for (const auto& category : heap.roots())
    for (ObjectIndex t : category.targets) children[root].push_back(t);
  for (ObjectIndex i = 0; i < n; ++i) {
    const auto refs = heap.references(i);
    children[i].assign(refs.begin(), refs.end());
    if (heap.class_edge(i) != kNoObject) children[i].push_back(heap.class_edge(i));  // an edge too
  }
  // Postorder numbers by an explicit-stack DFS.
  std::vector<std::uint32_t> post(n + 1, UINT32_MAX);
  std::vector<std::size_t> order;  // vertices in postorder
  std::vector<bool> seen(n + 1, false);
  std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
  seen[root] = true;
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    if (next == children[v].size()) {
      post[v] = static_cast<std::uint32_t>(order.size());
      order.push_back(v);
      stack.pop_back();
      continue;
    }
    const std::size_t w = children[v][next++];
    if (!seen[w]) {
      seen[w] = true;
      stack.push_back({w, 0});
    }
  }
  std::vector<std::vector<std::size_t>> preds(n + 1);
  for (std::size_t v = 0; v <= n; ++v) {
    if (!seen[v]) continue;
    for (ObjectIndex w : children[v]) preds[w].push_back(v);
  }
  std::vector<std::size_t> doms(n + 1, SIZE_MAX);
  doms[root] = root;
  auto intersect = [&](std::size_t a, std::size_t b) {
    while (a != b) {
      while (post[a] < post[b]) a = doms[a];
      while (post[b] < post[a]) b = doms[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const std::size_t v = *it;
      if (v == root) continue;
      std::size_t best = SIZE_MAX;
      for (std::size_t p : preds[v]) {
        if (doms[p] == SIZE_MAX) continue;
        best = best == SIZE_MAX ? p : intersect(p, best);
      }
      if (doms[v] != best) {
        doms[v] = best;
        changed = true;
      }
    }
  }
  Reference out;
  out.idom.assign(n, kNoObject);
  out.retained.resize(n);
  for (ObjectIndex i = 0; i < n; ++i) {
    out.retained[i] = heap.memsize(i);
    if (seen[i]) out.idom[i] = doms[i] == root ? DominatorTree::kSuperRoot : doms[i];
  }
  // Postorder puts every object before its dominator.
  for (std::size_t v : order) {
    if (v != root && doms[v] != root) out.retained[doms[v]] += out.retained[v];
  }
  return out;
}

void check_against_reference(const Heap& heap) {
  const DominatorTree& tree = heap.dominators();
  const Reference expected = reference_dominators(heap);
  std::size_t reachable = 0;
  std::uint64_t unreachable_bytes = 0;
  for (ObjectIndex i = 0; i < heap.size(); ++i) {
    INFO("object " << i);
    REQUIRE(tree.idom(i) == expected.idom[i]);
    REQUIRE(tree.retained(i) == expected.retained[i]);
    REQUIRE(tree.reachable(i) == (expected.idom[i] != kNoObject));
    if (tree.reachable(i)) {
      ++reachable;
    } else {
      unreachable_bytes += heap.memsize(i);
    }
  }
  CHECK(tree.reachable_count() == reachable);
  CHECK(tree.unreachable_bytes() == unreachable_bytes);
}

std::string fixture(const std::string& name) {
  return std::string(HEAPLEAK_TEST_DATA_DIR) + "/" + name;
}

}  // namespace

TEST_CASE("dominators equal an independent algorithm on large sparse heaps", "[dominators]") {
  std::mt19937 rng(20261203);
  for (int round = 0; round < 4; ++round) {
    // Mostly local references (objects near each other, as in Ruby heaps),
    // some far ones making cycles and shared children, a tenth of the heap
    // unreachable (referring into the reachable part, never referred to).
    Graph g;
    g.n = 20000;
    const int unreachable_from = g.n - g.n / 10;
    g.edges.resize(g.n);
    g.memsize.resize(g.n);
    for (int v = 0; v < g.n; ++v) {
      g.memsize[v] = 40 + static_cast<int>(rng() % 200);
      const int refs = static_cast<int>(rng() % 4);
      for (int k = 0; k < refs; ++k) {
        int w = rng() % 5 == 0
                    ? static_cast<int>(rng() % unreachable_from)
                    : std::min(unreachable_from - 1, v + 1 + static_cast<int>(rng() % 8));
        if (v >= unreachable_from && rng() % 2 == 0)
          w = unreachable_from + static_cast<int>(rng() % (g.n - unreachable_from));
        if (v < unreachable_from && w >= unreachable_from) continue;
        g.edges[v].push_back(w);
      }
    }
    g.roots = {{0, 1, 2}, {static_cast<int>(rng() % unreachable_from)}, {5000, 0}};
    auto heap = to_heap(g);
    INFO("round " << round);
    check_against_reference(*heap);
    CHECK(heap->dominators().unreachable_count() >= static_cast<std::size_t>(g.n / 10));
  }
}

TEST_CASE("dominators equal an independent algorithm on a long chain with branches",
          "[dominators]") {
  // A chain 100,000 long whose every seventh link also holds a leaf and
  // every 1000th a shortcut 500 links ahead, and an unreachable chain that
  // refers into it.
  Graph g;
  const int chain = 100000, leaves = chain / 7, dead = 2000;
  g.n = chain + leaves + dead;
  g.edges.resize(g.n);
  g.memsize.assign(g.n, 40);
  for (int k = 0; k + 1 < chain; ++k) {
    g.edges[k].push_back(k + 1);
    if (k % 7 == 0 && k / 7 < leaves) g.edges[k].push_back(chain + k / 7);
    if (k % 1000 == 0 && k + 500 < chain) g.edges[k].push_back(k + 500);
  }
  for (int d = 0; d + 1 < dead; ++d) {
    g.edges[chain + leaves + d].push_back(chain + leaves + d + 1);
    if (d % 100 == 0) g.edges[chain + leaves + d].push_back(d * 37 % chain);
  }
  g.roots = {{0}};
  auto heap = to_heap(g);
  check_against_reference(*heap);
  CHECK(heap->dominators().unreachable_count() == static_cast<std::size_t>(dead));
}

TEST_CASE("dominators equal an independent algorithm on real dumps", "[dominators]") {
  for (const char* name : {"rbheap-3dump/heap2.jsonl.gz", "heapy/my_dump_1.json.gz",
                           "heap-profiler/ruby-3.0-singleton-classes.heap.gz",
                           "heap-profiler/ruby-3.2-partial-retained.heap"}) {
    INFO(name);
    auto heap = load_heap(fixture(name)).value();
    check_against_reference(*heap);
  }
}

TEST_CASE("dominators match the definition on random graphs", "[dominators]") {
  std::mt19937 rng(20261202);
  for (int round = 0; round < 1500; ++round) {
    const int n = 2 + static_cast<int>(rng() % 11);
    const double density = (1 + rng() % 4) / 10.0;
    check_against_brute_force(random_graph(rng, n, density, 1 + static_cast<int>(rng() % 3)));
  }
}

TEST_CASE("dominators on adversarial shapes", "[dominators]") {
  SECTION("chain") {
    Graph g{8, {{1}, {2}, {3}, {4}, {5}, {6}, {7}, {}}, {{0}}, {40, 40, 40, 40, 40, 40, 40, 40}};
    check_against_brute_force(g);
  }
  SECTION("diamond") {
    Graph g{4, {{1, 2}, {3}, {3}, {}}, {{0}}, {10, 20, 30, 40}};
    check_against_brute_force(g);
  }
  SECTION("cycle with a tail") {
    Graph g{5, {{1}, {2}, {0, 3}, {4}, {3}}, {{0}}, {1, 2, 3, 4, 5}};
    check_against_brute_force(g);
  }
  SECTION("several roots reach one object") {
    Graph g{4, {{2}, {2}, {3}, {}}, {{0}, {1}}, {1, 1, 1, 1}};
    check_against_brute_force(g);
  }
  SECTION("unreachable parts") {
    Graph g{6, {{1}, {}, {3}, {2}, {5}, {}}, {{0}}, {1, 1, 1, 1, 1, 1}};
    check_against_brute_force(g);
  }
  SECTION("no roots at all (a partial dump)") {
    Graph g{3, {{1}, {2}, {}}, {}, {1, 1, 1}};
    check_against_brute_force(g);
  }
}

TEST_CASE("a long chain needs no recursion", "[dominators]") {
  std::string text = root_line("vm", {format_address(0x100000)}) + "\n";
  const int n = 200000;
  for (int k = 0; k < n; ++k) {
    std::vector<std::string> refs;
    if (k + 1 < n) refs.push_back(format_address(0x100000 + 0x28 * (k + 1)));
    text +=
        object_line({format_address(0x100000 + 0x28 * k), "ARRAY", "", refs, "\"memsize\":40"}) +
        "\n";
  }
  auto heap = load_text(text);
  const DominatorTree& tree = heap->dominators();
  CHECK(tree.retained(0) == 40ull * n);
  CHECK(tree.idom(n - 1) == static_cast<ObjectIndex>(n - 2));
  CHECK(tree.common_dominator(std::vector<ObjectIndex>{100, 5000}) == 100u);
}

// The class field is an edge (Heap::class_edge): a singleton class and what
// it holds are dominated by its object, and a class every instance of which
// sits under one object is dominated by that object.
TEST_CASE("dominators follow the class field both ways", "[dominators]") {
  auto heap = load_text(join_lines({
      root_line("vm", {"0x10", "0x18"}),
      object_line({"0x10", "CLASS", "0x40", {}, "\"name\":\"Object\""}),
      object_line({"0x18", "ARRAY", "", {"0x20"}}),
      object_line({"0x20", "OBJECT", "0x30", {}, "\"memsize\":40"}),
      object_line({"0x30",
                   "CLASS",
                   "0x40",
                   {"0x10", "0x20", "0x50"},
                   "\"singleton\":true,\"memsize\":100"}),
      object_line({"0x40", "CLASS", "", {"0x10"}, "\"name\":\"Class\""}),
      object_line({"0x50", "HASH", "", {}, "\"memsize\":1000"}),
  }));
  const DominatorTree& tree = heap->dominators();
  const ObjectIndex object = index_of(*heap, "0x20");
  const ObjectIndex singleton = index_of(*heap, "0x30");
  const ObjectIndex hash = index_of(*heap, "0x50");
  REQUIRE(tree.reachable(singleton));
  REQUIRE(tree.reachable(hash));
  CHECK(tree.idom(singleton) == object);
  CHECK(tree.idom(hash) == singleton);
  CHECK(tree.retained(object) == 1140);
  // Class is the class of Object (a root) and of the singleton: the super-root dominates it.
  CHECK(tree.idom(index_of(*heap, "0x40")) == DominatorTree::kSuperRoot);
}

TEST_CASE("dominators with class edges match the brute force on random graphs", "[dominators]") {
  std::mt19937 rng(2512);
  for (int round = 0; round < 60; ++round) {
    const int n = 4 + round % 12;
    Graph g = random_graph(rng, n, 0.12, 1 + round % 3);
    std::uniform_int_distribution<int> pick(-1, n - 1);
    g.klass.resize(n);
    for (int v = 0; v < n; ++v) g.klass[v] = pick(rng);
    INFO("round " << round);
    check_against_brute_force(g);
  }
}
