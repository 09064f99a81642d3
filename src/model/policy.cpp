// The scheduling policies a task set can name, and their parameters' vocabulary.
#include "model/policy.hpp"

#include <array>
#include <utility>

namespace takt::model {
namespace {

constexpr std::array<std::pair<Policy, std::string_view>, 4> kPolicies{{
    {Policy::federated, "federated"},
    {Policy::federated_greedy, "federated-greedy"},
    {Policy::partitioned_dm, "partitioned-dm"},
    {Policy::gedf_paws, "gedf-paws"},
}};

}  // namespace

std::string_view to_string(Policy policy) {
  for (const auto& [p, name] : kPolicies) {
    if (p == policy) return name;
  }
  return "?";
}

std::string_view to_string(Fit fit) { return fit == Fit::first_fit ? "first-fit" : "worst-fit"; }

std::string_view to_string(Overrun overrun) { return overrun == Overrun::skip ? "skip" : "wait"; }

std::optional<Policy> parse_policy(std::string_view text) {
  for (const auto& [p, name] : kPolicies) {
    if (name == text) return p;
  }
  return std::nullopt;
}

std::optional<Fit> parse_fit(std::string_view text) {
  if (text == "first-fit") return Fit::first_fit;
  if (text == "worst-fit") return Fit::worst_fit;
  return std::nullopt;
}

std::optional<Overrun> parse_overrun(std::string_view text) {
  if (text == "skip") return Overrun::skip;
  if (text == "wait") return Overrun::wait;
  return std::nullopt;
}

std::string policy_names() {
  std::string names;
  for (const auto& [p, name] : kPolicies) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

}  // namespace takt::model
