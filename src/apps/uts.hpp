// Unbalanced tree search (UTS, Olivier et al. 2006): binomial trees with SHA-1 node hashing.
#pragma once

#include <array>
#include <cstdint>

namespace takt::apps {

/// A binomial UTS tree: the root has `root_children` children; every other node has `m`
/// children with probability `q`, else none. Node identities are SHA-1 digests as in UTS
/// (rng_init / rng_spawn of its brg_sha1 generator), so trees are reproducible.
struct UtsConfig {
  int root_children = 140;
  double q = 0.124875;
  int m = 8;
  int seed = 1205;
};

/// The P³LS³ §5.1 tree: 140 root children, then 8 children with probability 0.124875.
/// The paper gives no seed; 1205 is the seed in 0..3000 whose tree is closest to its
/// "about 71,000 nodes" (70,949 nodes, depth 247).
inline constexpr UtsConfig uts_p3ls3{140, 0.124875, 8, 1205};
/// UTS's published T3 tree (binomial, b0 = 2000, q = 0.124875, m = 8, seed 42):
/// 4,112,897 nodes, depth 1,572.
inline constexpr UtsConfig uts_t3{2000, 0.124875, 8, 42};
/// T3's shape with seed 19: 970,025 nodes, depth 541 — a larger tree that repeated runs
/// of four runtimes can afford.
inline constexpr UtsConfig uts_t3_style{2000, 0.124875, 8, 19};

struct UtsResult {
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::uint64_t max_depth = 0;  ///< height of the deepest node, the root being 0
  friend bool operator==(const UtsResult&, const UtsResult&) = default;
};

inline UtsResult combine(const UtsResult& a, const UtsResult& b) {
  return {a.nodes + b.nodes, a.leaves + b.leaves, a.max_depth > b.max_depth ? a.max_depth : b.max_depth};
}

/// One node: its 20-byte SHA-1 state and its height.
struct UtsNode {
  std::array<std::uint8_t, 20> state{};
  std::uint32_t height = 0;
};

/// The root node of a tree (rng_init).
UtsNode uts_root(const UtsConfig& config);
/// Child `index` of `parent` (rng_spawn).
UtsNode uts_child(const UtsNode& parent, int index);
/// How many children `node` has.
int uts_children(const UtsConfig& config, const UtsNode& node);

/// Traverses the tree on the takt runtime: a spawn per node (the root's children are
/// split in halves, so that its frame holds two results, not root_children).
UtsResult uts(const UtsConfig& config);
/// Depth-first serial traversal.
UtsResult uts_serial(const UtsConfig& config);

/// Most children any non-root node has in these trees.
inline constexpr int uts_max_children = 8;

}  // namespace takt::apps
