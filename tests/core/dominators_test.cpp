#include "core/dominators.h"

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
    lines.push_back(
        object_line({addr(v), "ARRAY", "", refs, "\"memsize\":" + std::to_string(g.memsize[v])}));
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
    for (int w : g.edges[v]) {
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

}  // namespace

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
