// SameResult: a deterministic program's check that every job computes the reference result (init's serial one, else the first job's), bit for bit.
#pragma once

#include "takt/task.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace takt::apps {

/// matmul, heat, cholesky and lu compute every value on one strand in a fixed order,
/// whoever steals what, so the same input gives the same bits. check() compares a job's
/// result by a 64-bit fingerprint with the reference, the result the program's init
/// computed serially (expect()), else the first job's, and throws takt::Error, naming
/// the job and the reference, when it differs. No allocation: the fingerprint of up to kChunks chunks is
/// computed in parallel (parallel_for; serially outside a pool) into fixed slots and
/// combined in chunk order, so the check adds little to a job's span.
class SameResult {
 public:
  static constexpr std::size_t kChunks = 64;

  /// The reference: `values` as the same computation gave them serially (in init, outside
  /// any pool). Without it the first checked job's result becomes the reference, and a
  /// result wrong the same way in every job would pass.
  void expect(const double* values, std::size_t count);
  void check(std::string_view program, const Job& job, const double* values, std::size_t count);

  /// The fingerprint of `count` values (the same whatever the chunking runs on).
  [[nodiscard]] std::uint64_t fingerprint(const double* values, std::size_t count);

 private:
  std::array<std::uint64_t, kChunks> chunk_{};
  std::optional<std::uint64_t> first_;
  std::optional<std::uint64_t> first_job_;  ///< the job that gave `first_`; none: expect()
};

}  // namespace takt::apps
