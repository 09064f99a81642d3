// Tests of the task-set generators: reproducible, and each follows its paper's recipe.
#include "analysis/generator.hpp"
#include "analysis/federated.hpp"
#include "analysis/generator_methods.hpp"
#include "analysis/random.hpp"
#include "model/duration.hpp"
#include "model/program_profile.hpp"
#include "model/task_set_parser.hpp"
#include "model/task_set_writer.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace std::chrono_literals;
using takt::analysis::generate;
using takt::analysis::GeneratorMethod;
using takt::analysis::GeneratorOptions;

namespace {

GeneratorOptions options(GeneratorMethod method, int cores, double u, std::uint64_t seed) {
  GeneratorOptions o;
  o.method = method;
  o.cores = cores;
  o.utilization = u;
  o.seed = seed;
  o.programs = takt::analysis::default_rtws_profiles();
  return o;
}

std::string text_of(const GeneratorOptions& o) { return takt::model::write_task_set(generate(o).set); }

}  // namespace

TEST(Random, SequenceIsFixedByTheStandardEngine) {
  // std::mt19937_64 with the default seed gives 9981545732273789042 as its 10000th value
  // (a requirement of the C++ standard); our draws are built on that engine only.
  std::mt19937_64 engine;
  engine.discard(9999);
  EXPECT_EQ(engine(), 9981545732273789042ULL);
  // takt's draws, pinned: std::mt19937_64 seeded 1 starts 2469588189546311528, so
  // uniform01 is its top 53 bits times 2^-53; seeded 42 it starts 13930160852258120406,
  // 11788048577503494824, 13874630024467741450, all below the rejection limit for a range
  // of 1001, so uniform_int(0, 1000) gives their remainders 937, 528, 922.
  takt::analysis::Random one(1);
  EXPECT_EQ(one.uniform01(), static_cast<double>(2469588189546311528ULL >> 11) * 0x1.0p-53);
  takt::analysis::Random a(42);
  EXPECT_EQ(a.uniform_int(0, 1000), 937);
  EXPECT_EQ(a.uniform_int(0, 1000), 528);
  EXPECT_EQ(a.uniform_int(0, 1000), 922);
  // normal(): mean 0 and variance 1 within 5 standard errors over 20000 draws (the
  // mean's is 1/√20000 = 0.0071; the variance's √(2/20000) = 0.01).
  takt::analysis::Random n(3);
  double m1 = 0, m2 = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = n.normal();
    m1 += x;
    m2 += x * x;
  }
  m1 /= 20000;
  EXPECT_NEAR(m1, 0.0, 5 * 0.0071);
  EXPECT_NEAR(m2 / 20000 - m1 * m1, 1.0, 5 * 0.01);
  // lognormal_with_mean(300, σ = 1): ln x is normal with μ = ln 300 − σ²/2 = 5.7037825 −
  // 0.5 = 5.2037825 and variance σ² = 1 (same standard errors as above), so the mean of
  // x is e^(μ + σ²/2) = 300; that mean's standard error is 300·√(e^σ² − 1)/√20000 =
  // 300·1.3108/141.42 = 2.78, so 15 is 5.4 of them.
  takt::analysis::Random r(1);
  double sum = 0, l1 = 0, l2 = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = r.lognormal_with_mean(300, 1.0);
    sum += x;
    l1 += std::log(x);
    l2 += std::log(x) * std::log(x);
  }
  EXPECT_NEAR(sum / 20000, 300, 15);  // the mean is the requested one
  l1 /= 20000;
  EXPECT_NEAR(l1, 5.2037825, 5 * 0.0071);
  EXPECT_NEAR(l2 / 20000 - l1 * l1, 1.0, 5 * 0.01);
}

TEST(Generators, SameSeedSameFileDifferentSeedDifferentFile) {
  for (GeneratorMethod m : {GeneratorMethod::paws, GeneratorMethod::rt_openmp, GeneratorMethod::rtws,
                            GeneratorMethod::synthetic}) {
    SCOPED_TRACE(std::string(takt::analysis::to_string(m)));
    const std::string a = text_of(options(m, 4, 2.0, 7));
    EXPECT_EQ(a, text_of(options(m, 4, 2.0, 7)));
    EXPECT_NE(a, text_of(options(m, 4, 2.0, 8)));
    // The written file is a valid task set.
    auto set = takt::model::parse_task_set(a, "g.yaml");
    EXPECT_EQ(set.global.cores->count, 4);
  }
}

TEST(Generators, PawsAtExactlyOneTaskOfTheSmallestUtilizationEndsWithAnError) {
  // --utilization 0.1 on one core: the window is [0.08, 0.1] and a task's u is drawn in
  // [0.1, 0.4), so no draw fits. The generator redrew forever; now it gives up with the
  // usual message.
  EXPECT_THROW(generate(options(GeneratorMethod::paws, 1, 0.1, 1)), takt::Error);
}

TEST(Generators, PawsFollowsSection5) {
  // n_i = ⌈x·3m⌉ threads with x uniform in (0, 1]: for m = 2, 1..6 threads, each with
  // probability 1/6, so 5/6 of the tasks have a parallel region (≥ 2 threads).
  int tasks = 0, parallel = 0;
  std::set<int> thread_counts;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    // m = 2, the paper's window [0.58, 0.60] of m: U in [1.16, 1.20].
    auto g = generate(options(GeneratorMethod::paws, 2, 1.2, seed));
    EXPECT_EQ(g.set.global.policy, takt::model::Policy::gedf_paws);
    const double u = g.set.total_utilization();
    EXPECT_GE(u, 1.16 - 1e-6);
    EXPECT_LE(u, 1.20 + 1e-6);
    for (const auto& t : g.set.tasks) {
      EXPECT_GE(t.period, 100ms);
      EXPECT_LE(t.period, 150ms);
      EXPECT_EQ(t.deadline, t.period);
      EXPECT_GE(t.utilization(), 0.1 - 1e-6);
      EXPECT_LE(t.utilization(), 0.4 + 1e-6);
      int threads = 0;
      for (const auto& s : t.segments) threads = std::max(threads, s.strands);
      // The paper's shape: sequential, a parallel region of n_i threads, sequential;
      // either sequential part may be empty (left out), no part is of length 0.
      ASSERT_GE(t.segments.size(), 1u);
      ASSERT_LE(t.segments.size(), 3u);
      int regions = 0;
      for (const auto& s : t.segments) {
        EXPECT_GT(s.length.count(), 0) << t.name;
        EXPECT_TRUE(s.strands == 1 || s.strands == threads) << t.name;
        regions += s.strands == threads;
      }
      if (threads >= 2) {
        EXPECT_EQ(regions, 1) << t.name;
        // In the middle where there are sequential parts on both sides.
        if (t.segments.size() == 3) {
          EXPECT_EQ(t.segments[1].strands, threads) << t.name;
        }
      }
      EXPECT_GE(threads, 1);
      EXPECT_LE(threads, 3 * 2);  // n_i = x·3m
      ++tasks;
      parallel += threads >= 2;
      thread_counts.insert(threads);
    }
  }
  ASSERT_GT(tasks, 60);
  EXPECT_NEAR(static_cast<double>(parallel) / tasks, 5.0 / 6, 0.1) << parallel << " of " << tasks;
  EXPECT_EQ(thread_counts, (std::set<int>{1, 2, 3, 4, 5, 6}));
}

TEST(Generators, RtOpenMpFollowsSectionVIA) {
  std::map<int, int> span_percent;  // span as % of the period → count
  double length_sum = 0;
  double strands_sum = 0;
  int segments = 0;
  const double unit = 16e6 / 2048;  // default timescale 16 ms = 2^11 units
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto g = generate(options(GeneratorMethod::rt_openmp, 12, 6.0, seed));  // 50 % of 12 cores
    EXPECT_EQ(g.set.global.policy, takt::model::Policy::partitioned_dm);
    const double u = g.set.total_utilization();
    EXPECT_GE(u, 6.0 - 0.24 - 1e-9);  // within 2 % of m below the target
    EXPECT_LE(u, 6.0 + 1e-9);
    for (const auto& t : g.set.tasks) {
      // T = 2^k units, k ∈ {11..16}.
      const double k = std::log2(static_cast<double>(t.period.count()) / unit);
      EXPECT_NEAR(k, std::round(k), 1e-9);
      EXPECT_GE(std::lround(k), 11);
      EXPECT_LE(std::lround(k), 16);
      const double percent =
          100.0 * static_cast<double>(t.span().count()) / static_cast<double>(t.period.count());
      const int p = static_cast<int>(std::lround(percent));
      EXPECT_TRUE(p == 8 || p == 10 || p == 14 || p == 20) << percent;
      ++span_percent[p];
      for (const auto& s : t.segments) {
        // ≥ 100 units (one unit of rounding).
        EXPECT_GE(static_cast<double>(s.length.count()), 100 * unit - 1);
        EXPECT_GE(s.strands, 1);
        length_sum += static_cast<double>(s.length.count()) / unit;
        strands_sum += s.strands;
        ++segments;
      }
    }
  }
  // Probabilities .4 / .3 / .2 / .1 (loose: a few hundred tasks).
  int total = 0;
  for (auto [p, n] : span_percent) total += n;
  EXPECT_NEAR(span_percent[8] / double(total), 0.4, 0.08);
  EXPECT_NEAR(span_percent[10] / double(total), 0.3, 0.08);
  EXPECT_NEAR(span_percent[14] / double(total), 0.2, 0.08);
  EXPECT_NEAR(span_percent[20] / double(total), 0.1, 0.06);
  // Means 400 units and 4 strands; the last segment of each task is cut to the span, so
  // the length mean sits below 400.
  EXPECT_GT(length_sum / segments, 250);
  EXPECT_LT(length_sum / segments, 450);
  EXPECT_NEAR(strands_sum / segments, 4.0, 0.5);
}

TEST(Generators, RtOpenMpTimescaleScalesEverything) {
  auto o = options(GeneratorMethod::rt_openmp, 4, 1.5, 3);
  o.timescale = 2048ms;  // 1 unit = 1 ms: periods 2048 ms .. 65536 ms
  for (const auto& t : generate(o).set.tasks) {
    EXPECT_EQ(t.period.count() % 1'000'000, 0);
    EXPECT_GE(t.period, 2048ms);
    EXPECT_LE(t.period, 65536ms);
  }
}

TEST(Generators, RtOpenMpTimescalesGiveTheNumbersOfTableI) {
  // rt-openmp Table I: a timescale is the minimum period (2^11 units), so the maximum
  // period is 2^16 units = 32 timescales and the minimum segment length 100 units; the
  // paper prints them rounded to µs. Rows 2..6 (row 1, 2048 ms, is the test above):
  //   min period  max period  min segment  (exact: 100·ts/2048)
  //   32 ms       1024 ms     1563 µs      1562.5 µs
  //   16 ms        512 ms      781 µs       781.25 µs
  //    8 ms        256 ms      391 µs       390.625 µs
  //    4 ms        128 ms      195 µs       195.3125 µs
  //    2 ms         64 ms       98 µs        97.65625 µs
  struct Row {
    int min_period_ms, max_period_ms;
    double min_segment_us;
  };
  for (const Row row : {Row{32, 1024, 1563}, Row{16, 512, 781}, Row{8, 256, 391}, Row{4, 128, 195}, Row{2, 64, 98}}) {
    SCOPED_TRACE(row.min_period_ms);
    std::set<std::int64_t> periods;
    double shortest_us = 1e18;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      auto o = options(GeneratorMethod::rt_openmp, 12, 6.0, seed);
      o.timescale = std::chrono::milliseconds(row.min_period_ms);
      for (const auto& t : generate(o).set.tasks) {
        periods.insert(t.period.count());
        for (const auto& s : t.segments) shortest_us = std::min(shortest_us, static_cast<double>(s.length.count()) / 1e3);
      }
    }
    // Every period is a power of two times the timescale, from 1 to 32 of them: the
    // table's minimum and maximum periods bound them, and over 10 sets both are drawn.
    EXPECT_EQ(*periods.begin(), std::int64_t{row.min_period_ms} * 1'000'000);
    EXPECT_EQ(*periods.rbegin(), std::int64_t{row.max_period_ms} * 1'000'000);
    // No segment below the minimum, 100 units, which the table prints rounded to the µs.
    const double min_segment_us = 100.0 * row.min_period_ms * 1e3 / 2048;
    EXPECT_NEAR(min_segment_us, row.min_segment_us, 0.5);
    EXPECT_GE(shortest_us, min_segment_us - 1e-3);
  }
}

TEST(Generators, RtOpenMpSpansAreRoundedDownSoThe20PercentTestsKeepPAtMostDOver5) {
  // Timescale 2097152 ns = 2^21: a unit is 1024 ns and T = 2^k units, never a multiple
  // of 5 ns. At k = 12, T = 4194304 ns and 20 % of it is 838860.8 ns: rounded to
  // nearest, P = 838861 ns and 5P = 4194305 > D, a "long span" task in a set generated
  // as a 20 % test. Rounded down, P = 838860 and 5P <= D for every task.
  int twenty = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto o = options(GeneratorMethod::rt_openmp, 4, 1.5, seed);
    o.timescale = std::chrono::nanoseconds{2097152};
    for (const auto& t : generate(o).set.tasks) {
      EXPECT_LE(5 * t.span().count(), t.deadline.count()) << t.name << " seed " << seed;
      for (const int percent : {8, 10, 14, 20}) {
        if (t.span().count() == t.period.count() * percent / 100) {
          if (percent == 20) ++twenty;
          break;
        }
      }
    }
  }
  EXPECT_GT(twenty, 0) << "no task drew the 20 % span in 20 sets";
}

TEST(Generators, RtOpenMpTimescaleHasAMaximum) {
  // The longest period is 2^16 units = 32 timescales: at most 2^62 ns, so the timescale is
  // at most 2^57 ns. Above it the period used to be computed out of llround's range.
  for (const auto timescale : {std::chrono::nanoseconds{4'611'686'018'000'000'000},
                               takt::model::kMaxDuration / 32 + std::chrono::nanoseconds{1}}) {
    auto o = options(GeneratorMethod::rt_openmp, 2, 1.0, 1);
    o.timescale = timescale;
    try {
      (void)generate(o);
      ADD_FAILURE() << takt::model::format_duration(timescale) << " was accepted";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find("is too large"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("use at most --timescale 144115188.075855872s"), std::string::npos)
          << e.what();
    }
  }
  // At the largest timescale every set is a valid task set: periods up to 2^62 ns, and
  // tasks whose work Σ m·e would pass 2^62 ns (such as seed 3's t66) are drawn again.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto o = options(GeneratorMethod::rt_openmp, 64, 40.0, seed);
    o.timescale = takt::model::kMaxDuration / 32;
    const auto set = generate(o).set;
    for (const auto& t : set.tasks) EXPECT_LE(t.period, takt::model::kMaxDuration);
    EXPECT_NO_THROW((void)takt::model::parse_task_set(takt::model::write_task_set(set), "<generated>"))
        << "seed " << seed;
  }
}

TEST(Generators, RtwsFollowsSectionVIIA) {
  auto g = generate(options(GeneratorMethod::rtws, 30, 20.0, 5));
  EXPECT_EQ(g.set.global.policy, takt::model::Policy::federated);
  EXPECT_NEAR(g.set.total_utilization(), 20.0, 0.05 + 1e-6);
  // The first task's mean is 15 (the largest of {1, 3, 6, 12, 15} ≤ 20): u in [7.5, 22.5],
  // capped at 20.
  const auto& first = g.set.tasks.front();
  EXPECT_GE(first.utilization(), 7.5 - 1e-6);
  std::set<std::string> programs;
  for (const auto& t : g.set.tasks) {
    EXPECT_TRUE(t.measured_work.has_value());
    EXPECT_EQ(t.deadline, t.period);
    // T = C/u, and the span fits the deadline (a valid task; the paper has no other filter).
    EXPECT_LE(t.span(), t.deadline);
    programs.insert(t.program);
  }
  // The programs are drawn among the profiles' three (cholesky, lu, heat); seed 5 draws
  // each at least once (a fixed seed gives the same draws: the generator's own
  // distributions, not the standard library's).
  EXPECT_EQ(programs, (std::set<std::string>{"cholesky", "heat", "lu"}));
  // Only cholesky when asked.
  auto o = options(GeneratorMethod::rtws, 8, 5.0, 5);
  o.program = "cholesky";
  for (const auto& t : generate(o).set.tasks) EXPECT_EQ(t.program, "cholesky");
  o.program = "nosuch";
  EXPECT_THROW((void)generate(o), takt::Error);
}

TEST(Generators, RtwsNeverExceedsTheTargetUtilization) {
  // T was C/u rounded to the nearest nanosecond, so C/T could come out above u: on 8
  // cores at 50 % with L ≤ D/2 (the sets of rtws §V's capacity bound, Σu ≤ m/2), seed 1
  // gave Σu = 4.000000000000133 and the bound it was made for failed. Each C/T ≤ its u.
  for (int cores : {4, 8, 16}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto o = options(GeneratorMethod::rtws, cores, cores / 2.0, seed);
      o.span_limit = takt::analysis::SpanLimit::half_deadline;
      const auto g = generate(o);
      EXPECT_LE(g.set.total_utilization(), cores / 2.0) << cores << " cores, seed " << seed;
      // The synthetic tasks' periods are drawn the same way.
      EXPECT_LE(generate(options(GeneratorMethod::synthetic, cores, cores / 2.0, seed)).set.total_utilization(),
                cores / 2.0)
          << "synthetic, " << cores << " cores, seed " << seed;
    }
  }
}

TEST(Generators, RtwsReachesTheLargeMeanUtilizations) {
  // The default profiles have parallelism C/L = 32.31/1.23 = 26.3 (cholesky), 16.76/0.64 =
  // 26.2 (lu) and 51.7/2.62 = 19.7 (heat). The means 12 and 15 draw u up to 18 and 22.5.
  // Keeping L ≤ D/2 (C/L ≥ 2u) capped u at 26.3/2 = 13.1, so the paper's means 12 and 15 were
  // mostly not reproduced; the default now only needs L ≤ D.
  double highest = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const auto& t : generate(options(GeneratorMethod::rtws, 30, 20.0, seed)).set.tasks) {
      highest = std::max(highest, t.utilization());
      EXPECT_LE(t.span(), t.deadline);
    }
  }
  EXPECT_GT(highest, 15.0);
  EXPECT_LE(highest, 22.5);
  // heat alone (C/L = 19.7) takes u below 19.7; a larger draw goes to it at a u it can take
  // (RtwsEveryTaskGetsAFiniteCoreCount).
  auto heat = options(GeneratorMethod::rtws, 30, 20.0, 3);
  heat.program = "heat";
  for (const auto& t : generate(heat).set.tasks) {
    EXPECT_LT(t.span(), t.deadline);
    EXPECT_LT(t.utilization(), 51.7 / 2.62);
  }
}

TEST(Generators, RtwsEveryTaskGetsAFiniteCoreCount) {
  // The program filter was C/L ≥ u and its fallback set u = C/L: D = L, for which the
  // classic count ⌈(C − L)/(D − L)⌉ is undefined ("none: D = L"). heat on 30 cores at
  // U = 28 (seed 2) drew u > 19.7 = C/L first and got T = D = L = 2.62s. Now the filter is
  // strict and the fallback takes the smallest D at which the task alone needs at most m
  // cores: D = L + ⌈(C − L)/m⌉ = 2.62s + ⌈49.08s/30⌉ = 2.62s + 1.636s = 4.256s, and
  // n = ⌈49.08s/1.636s⌉ = 30.
  auto heat = options(GeneratorMethod::rtws, 30, 28.0, 2);
  heat.program = "heat";
  const auto set = generate(heat).set;
  ASSERT_FALSE(set.global.delta.has_value());
  for (const auto& t : set.tasks) {
    SCOPED_TRACE(t.name);
    EXPECT_LT(t.span(), t.deadline);
    EXPECT_TRUE(takt::analysis::federated_cores(t.work(), t.span(), t.deadline).has_value());
  }
  ASSERT_FALSE(set.tasks.empty());
  EXPECT_EQ(set.tasks.front().deadline, 4256ms);
  EXPECT_EQ(takt::analysis::federated_cores(set.tasks.front().work(), set.tasks.front().span(), 4256ms), 30);

  // With burdened spans the set carries δ = 1.5, and rtws eq. 3 deems D ≤ δ·L̂
  // unschedulable; the filter looked at L ≤ D. Work 10s, span 1s, burdened span 1.2s:
  // δ·L̂ = 1.8s, so u must stay below 10/1.8 = 5.56; m = 16, U = 8 draws u up to 9 (mean
  // 6). The fallback: 1 + ⌈qC/(qD − p·L̂)⌉ ≤ m with δ = p/q = 3/2 ⇔
  // D ≥ (3·1.2s·15 + 2·10s)/(2·15) = 74s/30 = 2.466666667s (rounded up to the ns), where
  // n = 1 + ⌈20s/(4.933333334s − 3.6s)⌉ = 1 + ⌈14.99999999⌉ = 16.
  auto burdened = options(GeneratorMethod::rtws, 16, 8.0, 2);
  burdened.programs = {{"p", "cholesky", {"1"}, 10s, 1s, 1200ms, std::nullopt}};
  int fallbacks = 0;
  for (std::uint64_t seed = 2; seed <= 4; ++seed) {
    burdened.seed = seed;
    const auto b = generate(burdened).set;
    ASSERT_TRUE(b.global.delta.has_value());
    for (const auto& t : b.tasks) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + t.name);
      EXPECT_GT(2 * t.deadline.count(), 3 * 1'200'000'000LL);  // D > δ·L̂
      if (t.work() > t.deadline) {
        auto n = takt::analysis::federated_cores_with_overhead(t.work(), 1200ms, t.deadline, *b.global.delta);
        EXPECT_TRUE(n.has_value());
      }
      if (t.deadline == 2466666667ns) {
        ++fallbacks;
        EXPECT_EQ(
            takt::analysis::federated_cores_with_overhead(t.work(), 1200ms, t.deadline, *b.global.delta), 16);
      }
    }
  }
  EXPECT_GT(fallbacks, 0);
}

TEST(Generators, RtwsHalfDeadlineSpanLimit) {
  // --span-limit half-deadline keeps L̂ ≤ D/2 (the capacity-augmentation condition): a program
  // takes u only when C/L̂ ≥ 2u, else the most parallel one at u = C/(2L̂), at most
  // 26.3/2 = 13.1 with the default profiles (no burdened spans: L̂ = L).
  auto o = options(GeneratorMethod::rtws, 30, 20.0, 5);
  o.span_limit = takt::analysis::SpanLimit::half_deadline;
  for (const auto& t : generate(o).set.tasks) {
    EXPECT_LE(2 * t.span().count(), t.deadline.count());
    EXPECT_LE(t.utilization(), 32.31 / 1.23 / 2 + 1e-9);
  }
  EXPECT_EQ(takt::analysis::parse_span_limit("half-deadline"), takt::analysis::SpanLimit::half_deadline);
  EXPECT_FALSE(takt::analysis::parse_span_limit("half").has_value());
}

TEST(Generators, RtwsUtilizationMeans) {
  takt::analysis::Random r(3);
  // 20 left: mean 15 → u in [7.5, 20]; 2.5 left: mean 1 → [0.5, 1.5]; 0.7 left: exactly 0.7.
  for (int i = 0; i < 100; ++i) {
    double u = takt::analysis::rtws_task_utilization(20, r);
    EXPECT_GE(u, 7.5);
    EXPECT_LE(u, 20);
    u = takt::analysis::rtws_task_utilization(2.5, r);
    EXPECT_GE(u, 0.5);
    EXPECT_LE(u, 1.5);
  }
  EXPECT_DOUBLE_EQ(takt::analysis::rtws_task_utilization(0.7, r), 0.7);
}

TEST(Generators, SyntheticTypesOfSectionIVA) {
  for (int type = 1; type <= 3; ++type) {
    auto o = options(GeneratorMethod::synthetic, 8, 4.0, 11);
    o.synthetic_type = type;
    auto g = generate(o);
    const std::int64_t ranges[3][4] = {
        {100000, 200000, 5, 10}, {10000, 20000, 2000, 4500}, {1000, 2000, 20000, 50000}};
    for (const auto& t : g.set.tasks) {
      EXPECT_GE(t.segments.size(), 10u);
      EXPECT_LE(t.segments.size(), 20u);
      for (const auto& s : t.segments) {
        EXPECT_GE(s.strands, ranges[type - 1][0]);
        EXPECT_LE(s.strands, ranges[type - 1][1]);
        EXPECT_GE(s.length.count(), ranges[type - 1][2]);
        EXPECT_LE(s.length.count(), ranges[type - 1][3]);
      }
    }
  }
}

TEST(Generators, RtOpenMpBelowOneTaskIsRefusedAtOnce) {
  // Every rt-openmp task has u ≥ 0.08 (span 8 % of the period at least): 0.05 on 4 cores
  // drew a million tasks (1.4 s) and advised more cores until 2026-11-29.
  try {
    (void)generate(options(GeneratorMethod::rt_openmp, 4, 0.05, 1));
    ADD_FAILURE() << "no error";
  } catch (const takt::Error& e) {
    EXPECT_STREQ(
        e.what(),
        "rt-openmp: --utilization is too small for one task (at least 0.08: a task's span alone is 8 % of "
        "its period or more)");
  }
}

TEST(Generators, RejectImpossibleRequests) {
  EXPECT_THROW((void)generate(options(GeneratorMethod::paws, 2, 3.0, 1)), takt::Error);   // U > m
  EXPECT_THROW((void)generate(options(GeneratorMethod::paws, 2, 0.05, 1)), takt::Error);  // below one task
  // The value in cores (it read "0.000" for 0.0001; given as a share, --utilization 1%
  // of 2 cores reads 0.02), and the least one to give.
  try {
    (void)generate(options(GeneratorMethod::paws, 2, 0.0001, 1));
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "paws tasks have u ≥ 0.1; a total utilization of 0.0001 is below one task: give --utilization of "
        "at least 0.1");
  }
  // As the decimal --utilization takes, never with an exponent (it read 1e-10), to 6
  // significant digits: 0.0123456789 → 0.0123457; 0.05 (in binary 0.05000000000000000277)
  // → 0.05.
  for (const auto& [u, text] :
       {std::pair{1e-10, "0.0000000001"}, std::pair{0.0123456789, "0.0123457"}, std::pair{0.05, "0.05"}}) {
    try {
      (void)generate(options(GeneratorMethod::paws, 2, u, 1));
      ADD_FAILURE() << "expected takt::Error for " << text;
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("a total utilization of ") + text + " is below"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW((void)generate(options(GeneratorMethod::rtws, 2, 0.01, 1)), takt::Error);
  // More cores than takt supports: refused up front (the set used to be generated and then
  // rejected when read back, at "<generated>:6:10").
  try {
    (void)generate(options(GeneratorMethod::rt_openmp, 2'000'000'000, 1.0, 1));
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("--cores 2000000000 is more cores than takt supports (at most 65536)"),
        std::string::npos)
        << e.what();
  }
}

TEST(Generators, DefaultProfilesAreTheCilkPlusMediansOfRtwsTableII) {
  // rtws Table II, Cilk Plus column (med., max, 99th per.) in seconds: work = the median
  // on 1 core, span = the median on 30 cores. Cholesky 32.31 / 1.23, LU 16.76 / 0.64,
  // Heat 51.70 / 2.62 (the test above compares the code with a file written from it).
  const auto profiles = takt::analysis::default_rtws_profiles();
  ASSERT_EQ(profiles.size(), 3u);
  const struct {
    const char* program;
    std::vector<std::string> args;
    std::chrono::milliseconds work, span;
  } table[] = {{"cholesky", {"3000", "32"}, 32310ms, 1230ms},
               {"lu", {"2048", "32"}, 16760ms, 640ms},
               {"heat", {"4096", "1024", "800"}, 51700ms, 2620ms}};
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(table[i].program);
    EXPECT_EQ(profiles[i].program, table[i].program);
    EXPECT_EQ(profiles[i].args, table[i].args);
    EXPECT_EQ(profiles[i].work, table[i].work);
    EXPECT_EQ(profiles[i].span, table[i].span);
    EXPECT_FALSE(profiles[i].burdened_span.has_value());
  }
}

TEST(Generators, DefaultProfilesMatchTheShippedExample) {
  const std::string path = std::string(TAKT_SOURCE_DIR) + "/examples/profiles/rtws-table2.yaml";
  const std::string expected = takt::model::write_program_profiles(
      takt::analysis::default_rtws_profiles(), takt::analysis::default_rtws_profiles_header());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), expected)
      << "regenerate examples/profiles/rtws-table2.yaml from default_profiles.cpp";
}
