// The first look at a graph's node records: each node's name, its hash and
// whether it holds a control character, read before validation checks and
// indexes the names. Reading 10^6 names out of the records was most of
// validation's names pass, so on a large graph (split_in_two,
// graph/side_by_side.h) the upper half is read on a second thread; the
// checks and inserts that follow stay in node order, so the error reported
// is the one a single pass meets.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/node_records.h"

namespace pt {

struct NameScan {
  std::vector<std::string_view> name;  // per node, viewing its record
  std::vector<uint64_t> hash;          // name_hash(name)
  std::vector<uint8_t> control;        // 1 where name holds a control character
};

// `threads` is the --threads setting (0: every core).
NameScan scan_names(const NodeRecords& records, unsigned threads);

}  // namespace pt
