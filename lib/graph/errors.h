// Typed errors of the engine. The library never prints or exits: it throws
// one of these, and app/ turns each kind into an exit code once.
#pragma once

#include <stdexcept>
#include <string>

namespace pt {

// The input (file, graph, settings) is malformed. Exit code 2.
// The message is one line: "<file>: node '<name>': <field> ..." where known.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A setting key or value is wrong. Exit code 2.
class SettingsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The graph is valid but no finite cut exists: some value the backward needs
// can be neither saved nor recomputed. Exit code 3. The message walks the
// chain of constraints.
class InfeasibleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pt
