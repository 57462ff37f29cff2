#include "graph/name_scan.h"

#include "graph/name_hash.h"
#include "graph/printable.h"
#include "graph/side_by_side.h"
#include "graph/wire.h"

namespace pt {

NameScan scan_names(const NodeRecords& records, unsigned threads) {
  const auto count = static_cast<int64_t>(records.size());
  const auto n = static_cast<size_t>(count);
  NameScan scan{std::vector<std::string_view>(n), std::vector<uint64_t>(n), std::vector<uint8_t>(n)};
  auto read = [&](int64_t lo, int64_t hi) {
    for (auto i = static_cast<size_t>(lo); i < static_cast<size_t>(hi); ++i) {
      // The name is a canonical record's first field: found at once.
      const std::string_view name = wire::string_field(records.bytes(i), 1);
      scan.name[i] = name;
      scan.hash[i] = name_hash(name);
      scan.control[i] = has_control_character(name) ? 1 : 0;
    }
  };
  run_side_by_side(split_in_two(threads, count), [&] { read(count / 2, count); }, [&] { read(0, count / 2); });
  return scan;
}

}  // namespace pt
