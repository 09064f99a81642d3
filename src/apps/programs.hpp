// The built-in programs (matmul, heat, cholesky, lu, uts, fib, synthetic) and their registration by name.
#pragma once

#include "takt/error.hpp"
#include "takt/program.hpp"

#include <span>
#include <string_view>

namespace takt::apps {

/// A built-in program: a name for `program:` in a task-set file, a one-line description
/// with its arguments, and the factory of its takt::Task. docs/programs.md documents
/// each one.
struct BuiltinProgram {
  std::string_view name;
  std::string_view description;
  TaskFactory create;
};

/// Every built-in program, in a fixed order.
std::span<const BuiltinProgram> builtin_programs();

/// Registers every built-in program in `registry` (default: takt::programs()) under its
/// name; a name already registered is left alone, so calling it again is harmless.
/// The platform calls it once before resolving a task set's programs. It is inline so
/// that apps/ does not depend on the registry's implementation (which lives in
/// platform/): the caller links both.
inline void register_builtin_programs(ProgramRegistry& registry = programs()) {
  for (const BuiltinProgram& p : builtin_programs()) {
    if (registry.contains(p.name)) continue;
    try {
      registry.add(std::string(p.name), std::string(p.description), p.create);
    } catch (const Error&) {
      if (!registry.contains(p.name)) throw;  // not a concurrent registration of the same name
    }
  }
}

}  // namespace takt::apps
