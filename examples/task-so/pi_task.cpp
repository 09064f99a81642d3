// An example takt task built as a shared object: computes π by divide-and-conquer integration, once per job.
//
// Task-set file:   program: ./libtakt_pi_task.so
//                  args: ["--intervals", "200000", "--grain", "2048"]
// It integrates 4 / (1 + x²) over [0, 1] with the midpoint rule on `intervals`
// intervals, splitting the range in halves down to `grain` intervals. The two halves
// are independent, so integrate() spawns the left half on takt's fork-join runtime,
// computes the right half itself and syncs. The spawn and sync resolve to the runtime
// of the process that loads this object (the takt program exports it); run outside a
// pool, the same code runs serially.
#include <takt/runtime/scope.hpp>
#include <takt/task.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

class PiTask {
 public:
  void init(const takt::TaskArgs& args) {
    for (std::size_t i = 0; i < args.args.size(); ++i) {
      const std::string& a = args.args[i];
      if ((a == "--intervals" || a == "--grain") && i + 1 < args.args.size()) {
        std::uint64_t value = parse(args.args[++i], a);
        (a == "--intervals" ? intervals_ : grain_) = value;
      } else {
        throw std::invalid_argument("unknown argument '" + a + "' (use --intervals N and --grain G)");
      }
    }
    if (intervals_ == 0 || grain_ == 0)
      throw std::invalid_argument("--intervals and --grain must be positive");
  }

  void run(const takt::Job&) {
    const double pi = integrate(0, intervals_) / static_cast<double>(intervals_);
    if (std::fabs(pi - 3.14159265358979323846) > 1e-6) {
      throw std::runtime_error("pi came out as " + std::to_string(pi));
    }
    last_ = pi;
  }

  void finalize() {}

  [[nodiscard]] double last() const { return last_; }

 private:
  static std::uint64_t parse(const std::string& text, const std::string& option) {
    try {
      std::size_t used = 0;
      // stoull takes "-5" as 2^64 - 5 (a run that never ends): digits only.
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument(text);
      unsigned long long v = std::stoull(text, &used);
      if (used != text.size()) throw std::invalid_argument(text);
      return v;
    } catch (const std::exception&) {
      throw std::invalid_argument(option + " needs a whole number, got '" + text + "'");
    }
  }

  // Sum of f at the midpoints of intervals [lo, hi).
  double integrate(std::uint64_t lo, std::uint64_t hi) const {
    if (hi - lo <= grain_) {
      const double h = 1.0 / static_cast<double>(intervals_);
      double sum = 0;
      for (std::uint64_t i = lo; i < hi; ++i) {
        const double x = (static_cast<double>(i) + 0.5) * h;
        sum += 4.0 / (1.0 + x * x);
      }
      return sum;
    }
    const std::uint64_t mid = lo + (hi - lo) / 2;
    double left = 0;
    takt::Scope scope;
    scope.spawn([&] { left = integrate(lo, mid); });
    const double right = integrate(mid, hi);
    scope.sync();
    return left + right;
  }

  std::uint64_t intervals_ = 200000;
  std::uint64_t grain_ = 2048;
  double last_ = 0;
};

}  // namespace

// The task's C entry point (takt/task_abi.h), written by takt::export_task.
extern "C" TAKT_TASK_EXPORT const takt_task_v1* takt_task_entry(void) {
  return takt::export_task<PiTask>("pi");
}
