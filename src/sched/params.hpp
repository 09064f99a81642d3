// Params: the typed parameters of one component instance, as declared by its component.
#pragma once

#include "sched/task.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace takt::sched {

/// The value types a component parameter can have. In YAML: integer `3`, duration
/// `250us` / `10ms` / `1.5s` / `100ns`, text `cluster`, boolean `true`, integer list
/// `[0, 2, 3]`.
enum class ParamType { integer, duration, text, boolean, integer_list };

const char* to_string(ParamType type) noexcept;

/// One declared parameter of a component.
struct ParamInfo {
  std::string name;
  ParamType type = ParamType::integer;
  /// Default in YAML syntax; empty means the parameter is optional with no value.
  std::string default_value;
  /// For text parameters: the accepted words (empty: any).
  std::vector<std::string> choices;
  std::string doc;
};

using ParamValue = std::variant<std::int64_t, Time, std::string, bool, std::vector<std::int64_t>>;

/// The parameter values of one instance (defaults filled in). Getters throw
/// std::out_of_range for a parameter that has no value, std::bad_variant_access
/// for a wrong type: both are programming errors of a component, since the values
/// were checked against its declaration when the topology was read.
class Params {
 public:
  void set(std::string name, ParamValue value) { values_[std::move(name)] = std::move(value); }
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }

  std::int64_t integer(std::string_view name) const { return std::get<std::int64_t>(at(name)); }
  Time duration(std::string_view name) const { return std::get<Time>(at(name)); }
  const std::string& text(std::string_view name) const { return std::get<std::string>(at(name)); }
  bool boolean(std::string_view name) const { return std::get<bool>(at(name)); }
  const std::vector<std::int64_t>& integers(std::string_view name) const {
    return std::get<std::vector<std::int64_t>>(at(name));
  }
  const std::map<std::string, ParamValue, std::less<>>& values() const noexcept { return values_; }

 private:
  const ParamValue& at(std::string_view name) const;
  std::map<std::string, ParamValue, std::less<>> values_;
};

}  // namespace takt::sched
