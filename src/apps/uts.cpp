// Unbalanced tree search on the takt runtime and serially.
#include "apps/uts.hpp"

#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <nettle/sha1.h>

#include <string>

namespace takt::apps {
namespace {

void check(const UtsConfig& config) {
  if (config.m < 0 || config.m > uts_max_children) {
    throw takt::Error("UTS: m = " + std::to_string(config.m) + " children per node; at most " +
                      std::to_string(uts_max_children) + " are supported");
  }
}

UtsResult visit(const UtsConfig& config, const UtsNode& node);

/// The children [first, last) of `parent`, split in halves (the root's many children).
UtsResult visit_children(const UtsConfig& config, const UtsNode& parent, int first, int last) {
  if (last - first == 1) return visit(config, uts_child(parent, first));
  int middle = first + (last - first) / 2;
  UtsResult left;
  Scope scope;
  scope.spawn([&] { left = visit_children(config, parent, first, middle); });
  UtsResult right = visit_children(config, parent, middle, last);
  scope.sync();
  return combine(left, right);
}

UtsResult visit(const UtsConfig& config, const UtsNode& node) {
  UtsResult self{1, 0, node.height};
  int children = uts_children(config, node);
  if (children == 0) {
    self.leaves = 1;
    return self;
  }
  if (node.height == 0 && children > uts_max_children) {
    return combine(self, visit_children(config, node, 0, children));
  }
  UtsResult results[uts_max_children];
  Scope scope;
  for (int i = 0; i < children; ++i) {
    scope.spawn([&config, &node, &results, i] { results[i] = visit(config, uts_child(node, i)); });
  }
  scope.sync();
  for (int i = 0; i < children; ++i) self = combine(self, results[i]);
  return self;
}

UtsResult visit_serial(const UtsConfig& config, const UtsNode& node) {
  UtsResult self{1, 0, node.height};
  int children = uts_children(config, node);
  if (children == 0) self.leaves = 1;
  for (int i = 0; i < children; ++i) self = combine(self, visit_serial(config, uts_child(node, i)));
  return self;
}

}  // namespace

UtsNode uts_root(const UtsConfig& config) {
  // Every version of the search (here, and the benchmark's oneTBB and OpenMP ones) starts
  // here and keeps a node's results in an array of uts_max_children.
  check(config);
  // rng_init: SHA-1 of 16 zero bytes followed by the seed, big-endian.
  std::uint8_t seed[20] = {};
  seed[16] = static_cast<std::uint8_t>(config.seed >> 24);
  seed[17] = static_cast<std::uint8_t>(config.seed >> 16);
  seed[18] = static_cast<std::uint8_t>(config.seed >> 8);
  seed[19] = static_cast<std::uint8_t>(config.seed);
  UtsNode root;
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, sizeof seed, seed);
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, root.state.data());
  return root;
}

UtsNode uts_child(const UtsNode& parent, int index) {
  // rng_spawn: SHA-1 of the parent's state followed by the child's index, big-endian.
  const std::uint8_t number[4] = {static_cast<std::uint8_t>(index >> 24), static_cast<std::uint8_t>(index >> 16),
                                  static_cast<std::uint8_t>(index >> 8), static_cast<std::uint8_t>(index)};
  UtsNode child;
  child.height = parent.height + 1;
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, parent.state.size(), parent.state.data());
  sha1_update(&ctx, sizeof number, number);
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, child.state.data());
  return child;
}

int uts_children(const UtsConfig& config, const UtsNode& node) {
  if (node.height == 0) return config.root_children;
  // rng_rand: the digest's last four bytes, big-endian, as a positive 31-bit integer;
  // rng_toProb divides by 2^31.
  std::uint32_t r = (static_cast<std::uint32_t>(node.state[16]) << 24) |
                    (static_cast<std::uint32_t>(node.state[17]) << 16) |
                    (static_cast<std::uint32_t>(node.state[18]) << 8) | static_cast<std::uint32_t>(node.state[19]);
  double probability = static_cast<double>(r & 0x7FFFFFFFu) / 2147483648.0;
  return probability < config.q ? config.m : 0;
}

UtsResult uts(const UtsConfig& config) { return visit(config, uts_root(config)); }

UtsResult uts_serial(const UtsConfig& config) { return visit_serial(config, uts_root(config)); }

}  // namespace takt::apps
