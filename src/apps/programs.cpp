// The built-in programs as takt::Task classes: each init parses its arguments and allocates, each run is one
// job.
#include "apps/programs.hpp"

#include "apps/cholesky.hpp"
#include "apps/fib.hpp"
#include "apps/heat.hpp"
#include "apps/lu.hpp"
#include "apps/matmul.hpp"
#include "apps/program_args.hpp"
#include "apps/same_result.hpp"
#include "apps/synthetic.hpp"
#include "apps/uts.hpp"
#include "takt/runtime/algorithms.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace takt::apps {
namespace {

constexpr std::string_view kFibUsage = "fib [N=30]";
constexpr std::string_view kMatmulUsage = "matmul [N=128]";
constexpr std::string_view kHeatUsage = "heat [ROWS=512] [COLUMNS=512] [STEPS=50] [LEAF_ROWS=10]";
constexpr std::string_view kCholeskyUsage = "cholesky [N=512] [BASE=32]";
constexpr std::string_view kLuUsage = "lu [N=512] [BASE=32]";
constexpr std::string_view kUtsUsage = "uts [TREE=p3ls3]   (TREE: p3ls3, t3-style or t3)";
constexpr std::string_view kSyntheticUsage = "synthetic [TYPE=1] [SEED=1] [SCALE=1]";

ProgramArgs reader(std::string_view program, const TaskArgs& args, std::string_view usage) {
  return ProgramArgs(std::string(program), args.args, std::string(usage));
}

/// fib(n) without cutoff: one spawn per call, nothing else (pure scheduling overhead).
class FibTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader("fib", a, kFibUsage);
    n_ = args.whole("N", 30, 0, 50);
    args.finish();
    std::uint64_t x = 0, y = 1;  // fib(0), fib(1)
    for (std::uint64_t i = 0; i < n_; ++i) {
      const std::uint64_t z = x + y;
      x = y;
      y = z;
    }
    expected_ = x;
  }
  void run(const Job&) override {
    const std::uint64_t r = fib(n_);
    if (r != expected_) throw Error(fmt::format("fib({}) came out as {}, expected {}", n_, r, expected_));
  }

 private:
  std::uint64_t n_ = 30;
  std::uint64_t expected_ = 0;
};

/// C = A·B, n × n, rows in parallel (P³LS³ §5.2).
class MatmulTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader("matmul", a, kMatmulUsage);
    n_ = args.whole("N", 128, 1, 16384);
    args.finish();
    a_.resize(n_ * n_);
    b_.resize(n_ * n_);
    c_.assign(n_ * n_, 0.0);
    for (std::size_t i = 0; i < n_ * n_; ++i) {
      a_[i] = static_cast<double>(i % 17) - 8.0;
      b_[i] = static_cast<double>(i % 13) * 0.5;
    }
    matmul(a_.data(), b_.data(), c_.data(), n_);  // outside a pool: serially, the reference
    same_.expect(c_.data(), c_.size());
  }
  void run(const Job& job) override {
    // C starts as NaN: a row the job left unwritten would otherwise keep the right values
    // of init's reference or of an earlier job, and pass the check.
    std::fill(c_.begin(), c_.end(), std::numeric_limits<double>::quiet_NaN());
    matmul(a_.data(), b_.data(), c_.data(), n_);
    same_.check("matmul", job, c_.data(), c_.size());
  }

 private:
  std::size_t n_ = 128;
  std::vector<double> a_, b_, c_;
  SameResult same_;
};

class HeatTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader("heat", a, kHeatUsage);
    problem_.rows = args.whole("ROWS", 512, 3, 1'000'000);
    problem_.columns = args.whole("COLUMNS", 512, 3, 1'000'000);
    problem_.steps = args.whole("STEPS", 50, 0, 100'000'000);
    problem_.leaf_rows = args.whole("LEAF_ROWS", 10, 1, 1'000'000);
    args.finish();
    constexpr std::size_t max_points = std::size_t{1} << 28;
    if (problem_.rows * problem_.columns > max_points) {
      throw Error(
          fmt::format("program 'heat': a {} x {} grid is too large (two grids of at most {} points, "
                      "4 GiB, are allowed); lower ROWS or COLUMNS",
                      problem_.rows, problem_.columns, max_points));
    }
    grids_.emplace(problem_);
    same_.expect(heat(problem_, *grids_), problem_.rows * problem_.columns);  // serially, the reference
  }
  void run(const Job& job) override {
    const double* result = heat(problem_, *grids_);
    same_.check("heat", job, result, problem_.rows * problem_.columns);
  }

 private:
  HeatProblem problem_;
  std::optional<HeatGrids> grids_;
  SameResult same_;
};

/// Copies `from` into `to` (both n × n), rows in parallel: part of every job, so that
/// each job factors the same input.
void copy_rows(const SquareMatrix& from, SquareMatrix& to) {
  const std::size_t n = from.n;
  const std::size_t grain = std::max<std::size_t>(1, 4096 / std::max<std::size_t>(n, 1));
  const double* src = from.values.data();
  double* dst = to.values.data();
  parallel_for(std::size_t{0}, n, grain,
               [=](std::size_t i) { std::memcpy(dst + i * n, src + i * n, n * sizeof(double)); });
}

/// Factor sizes: N from 1 to 20,000 (a 20,000² matrix is 3.2 GB, two are kept).
constexpr std::uint64_t kMaxMatrix = 20'000;

/// A recursive factorisation program: each job copies the input and factors the copy in
/// place; every job's result must equal the one init computed serially.
struct Factorisation {
  const char* name;
  std::string_view usage;
  std::size_t default_base;
  SquareMatrix (*input)(std::size_t n, std::uint64_t seed);
  void (*factor)(MatrixView a, std::size_t n, std::size_t base);
};

constexpr Factorisation kCholesky{"cholesky", kCholeskyUsage, cholesky_default_base, random_spd_matrix,
                                  cholesky};
constexpr Factorisation kLu{"lu", kLuUsage, lu_default_base, random_dominant_matrix, lu};

template <const Factorisation& F>
class FactorTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader(F.name, a, F.usage);
    const std::size_t n = args.whole("N", 512, 1, kMaxMatrix);
    base_ = args.whole("BASE", F.default_base, 1, kMaxMatrix);
    args.finish();
    input_ = F.input(n, 1);
    // The reference, computed serially (init runs outside a pool), in the work matrix.
    work_ = input_;
    F.factor(work_.view(), work_.n, base_);
    same_.expect(work_.values.data(), work_.values.size());
  }
  void run(const Job& job) override {
    copy_rows(input_, work_);
    F.factor(work_.view(), work_.n, base_);
    same_.check(F.name, job, work_.values.data(), work_.values.size());
  }

 private:
  std::size_t base_ = F.default_base;
  SquareMatrix input_, work_;
  SameResult same_;
};

class UtsTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader("uts", a, kUtsUsage);
    tree_ = args.choice("TREE", "p3ls3", {"p3ls3", "t3-style", "t3"});
    args.finish();
    config_ = tree_ == "t3" ? uts_t3 : tree_ == "t3-style" ? uts_t3_style : uts_p3ls3;
    expected_ = uts(config_);  // outside a pool: serially, the reference
  }
  void run(const Job& job) override {
    const UtsResult r = uts(config_);
    if (!(r == expected_)) {
      throw Error(fmt::format("uts {}: job {} counted {} nodes, {} leaves, depth {}; the serial search {}, {}, {}",
                              tree_, job.index, r.nodes, r.leaves, r.max_depth, expected_.nodes, expected_.leaves,
                              expected_.max_depth));
    }
  }

 private:
  std::string tree_;
  UtsConfig config_;
  UtsResult expected_;
};

class SyntheticProgram final : public Task {
 public:
  void init(const TaskArgs& a) override {
    ProgramArgs args = reader("synthetic", a, kSyntheticUsage);
    const auto type = static_cast<int>(args.whole("TYPE", 1, 1, 3));
    const std::uint64_t seed = args.whole("SEED", 1, 0, UINT64_MAX);
    const double scale = args.number("SCALE", 1.0, 1e-6, 100.0);
    args.finish();
    task_ = make_synthetic_task(type, seed, scale);
  }
  void run(const Job&) override { run_synthetic(task_); }

 private:
  SyntheticTask task_;
};

template <class T>
TaskFactory factory() {
  return [] { return std::unique_ptr<Task>(new T()); };
}

const std::array<BuiltinProgram, 7>& table() {
  static const std::array<BuiltinProgram, 7> programs{{
      {"matmul", "dense C = A·B, rows in parallel (P³LS³ §5.2); args: [N=128]", factory<MatmulTask>()},
      {"heat",
       "heat diffusion, Jacobi steps split over rows by divide and conquer (rtws §IV.A); args: "
       "[ROWS=512] [COLUMNS=512] [STEPS=50] [LEAF_ROWS=10]",
       factory<HeatTask>()},
      {"cholesky", "recursive Cholesky factorisation of an SPD matrix (rtws §IV.A); args: [N=512] [BASE=32]",
       factory<FactorTask<kCholesky>>()},
      {"lu", "recursive LU decomposition without pivoting (rtws §IV.A); args: [N=512] [BASE=32]",
       factory<FactorTask<kLu>>()},
      {"uts", "unbalanced tree search, binomial SHA-1 trees (P³LS³ §5.1); args: [TREE=p3ls3|t3-style|t3]",
       factory<UtsTask>()},
      {"fib", "fib(N) with a spawn per call and no cutoff (pure spawn overhead); args: [N=30]",
       factory<FibTask>()},
      {"synthetic",
       "rtws §IV.A synthetic synchronous task: parallel-for segments of busy-wait nodes; args: "
       "[TYPE=1|2|3] [SEED=1] [SCALE=1]",
       factory<SyntheticProgram>()},
  }};
  return programs;
}

}  // namespace

std::span<const BuiltinProgram> builtin_programs() { return table(); }

}  // namespace takt::apps
