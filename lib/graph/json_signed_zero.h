// Negative zeros through protobuf's JSON code. Its printer writes -0.0 as
// the number `-0`, and its parser reads `-0` as the integer 0, so a graph's
// literal -0.0 (PyTorch writes scalar_tensor(-0.0) into real graphs) came
// back as +0.0 from a JSON file. Written as `-0.0`, it parses as -0.0.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pt {

// `json` with every number token `-0` (outside strings) written `-0.0`;
// nothing where it has none (the caller keeps its text).
std::optional<std::string> negative_zeros_as_decimals(std::string_view json);

}  // namespace pt
