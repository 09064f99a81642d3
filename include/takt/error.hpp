// takt::Error: an error the user can cause and fix; its message says what to change.
#pragma once

#include <stdexcept>
#include <string>

namespace takt {

/// Thrown for anything a user can correct (bad input, bad configuration, an
/// exhausted static-memory budget, ...). The message names the offending value and
/// what to change. Internal invariants use assertions instead.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

}  // namespace takt
