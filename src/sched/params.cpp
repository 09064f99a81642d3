// Params: the typed parameters of one component instance, as declared by its component.
#include "sched/params.hpp"

#include <stdexcept>

namespace takt::sched {

const char* to_string(ParamType type) noexcept {
  switch (type) {
    case ParamType::integer:
      return "integer";
    case ParamType::duration:
      return "duration";
    case ParamType::text:
      return "text";
    case ParamType::boolean:
      return "boolean";
    case ParamType::integer_list:
      return "list of integers";
  }
  return "?";
}

const ParamValue& Params::at(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("parameter '" + std::string(name) + "' has no value");
  return it->second;
}

}  // namespace takt::sched
