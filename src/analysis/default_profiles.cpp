// The default program profiles of the rtws generator: values from rtws Table II, labelled.
#include "analysis/generator.hpp"

namespace takt::analysis {

std::string default_rtws_profiles_header() {
  return "Default programs for `takt generate --method rtws`: a copy of the values built into takt,\n"
         "which it uses when --programs is not given (editing this file does not change them).\n"
         "\n"
         "These are NOT measurements of takt. The values come from rtws Table II (Cilk Plus,\n"
         "32-core Xeon, medians over 100 runs), because the paper does not print the work and\n"
         "burdened span it measured with Cilkprof:\n"
         "  work = the median time on 1 core (the work C);\n"
         "  span = the median time on 30 cores, an upper bound on the span L (T_P >= L);\n"
         "  no burdened_span, so eq. 3 (if delta is set) uses that span.\n"
         "Inputs as in rtws section IV.A: Cholesky 3000x3000 and LU 2048x2048 with 32x32 base\n"
         "cases, Heat 4096x1024 for 800 time steps. For values of takt's own programs on your\n"
         "machine, measure them with `takt profile` and give that file as --programs\n"
         "(docs/profiling.md).";
}

std::vector<model::ProgramProfile> default_rtws_profiles() {
  using std::chrono::milliseconds;
  return {
      {"cholesky-3000",
       "cholesky",
       {"3000", "32"},
       milliseconds(32310),
       milliseconds(1230),
       std::nullopt,
       std::nullopt},
      {"lu-2048", "lu", {"2048", "32"}, milliseconds(16760), milliseconds(640), std::nullopt, std::nullopt},
      {"heat-4096x1024",
       "heat",
       {"4096", "1024", "800"},
       milliseconds(51700),
       milliseconds(2620),
       std::nullopt,
       std::nullopt},
  };
}

}  // namespace takt::analysis
