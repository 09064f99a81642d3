// SameResult: a deterministic program's check that every job computes the reference result (init's serial one, else the first job's), bit for bit.
#include "apps/same_result.hpp"

#include "takt/error.hpp"
#include "takt/runtime/algorithms.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace takt::apps {
namespace {

/// A bijective mix of one 64-bit word (xor-shift, multiply, xor-shift): a change in any
/// bit changes about half of the output's, so differences do not cancel in the sums.
std::uint64_t mix(std::uint64_t w) noexcept {
  w ^= w >> 31;
  w *= 0xbf58476d1ce4e5b9ULL;
  w ^= w >> 29;
  return w;
}

/// Two sums of the mixed words in 4 lanes, the second weighting each word by its position
/// (a += m, b += a), combined with the chunk's start and length.
std::uint64_t chunk_print(const double* values, std::size_t begin, std::size_t end) noexcept {
  std::array<std::uint64_t, 4> a{}, b{};
  std::size_t i = begin;
  for (; i + 4 <= end; i += 4) {
    for (std::size_t l = 0; l < 4; ++l) {
      std::uint64_t w;
      std::memcpy(&w, values + i + l, sizeof w);
      a[l] += mix(w);
      b[l] += a[l];
    }
  }
  for (; i < end; ++i) {
    std::uint64_t w;
    std::memcpy(&w, values + i, sizeof w);
    a[0] += mix(w);
    b[0] += a[0];
  }
  std::uint64_t h = mix(begin ^ (end << 32));
  for (std::size_t l = 0; l < 4; ++l) h = mix(h ^ a[l]) + mix(b[l] ^ (l + 1));
  return h;
}

}  // namespace

std::uint64_t SameResult::fingerprint(const double* values, std::size_t count) {
  const std::size_t chunks = std::clamp<std::size_t>(count / 4096, 1, kChunks);
  const std::size_t per = (count + chunks - 1) / chunks;
  takt::parallel_for(std::size_t{0}, chunks, std::size_t{1}, [&](std::size_t c) {
    const std::size_t begin = std::min(count, c * per);
    chunk_[c] = chunk_print(values, begin, std::min(count, begin + per));
  });
  std::uint64_t h = mix(count);
  for (std::size_t c = 0; c < chunks; ++c) h = mix(h ^ chunk_[c]) + c;
  return h;
}

void SameResult::expect(const double* values, std::size_t count) {
  first_ = fingerprint(values, count);
  first_job_.reset();
}

void SameResult::check(std::string_view program, const Job& job, const double* values, std::size_t count) {
  const std::uint64_t print = fingerprint(values, count);
  if (!first_) {
    first_ = print;
    first_job_ = job.index;
  } else if (print != *first_) {
    const std::string reference =
        first_job_ ? fmt::format("job {}'s", *first_job_) : std::string("the one init computed serially");
    throw Error(fmt::format("{}: job {} computed a result different from {}, from the same input", program,
                            job.index, reference));
  }
}

}  // namespace takt::apps
