// Node references (Node::inputs, Node::positional_inputs) as views of ids
// kept in blocks that their graph owns (Graph::ref_blocks).
//
// Why: two std::vectors per node were two heap allocations each (4,573 of
// gpt2_124m's allocations, ~0.8M of its instructions; 2 x 10^6 at 10^6
// nodes) and 48 bytes of the Node plus the allocator's headers. Here the
// ids of thousands of nodes share one allocation, and a Node holds two
// 16-byte views. Blocks never move once written, so a view stays valid as
// long as the graph, or any copy of it, holds the block.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "graph/name_index.h"

namespace pt {

// Ids in graph order of reading (see Node). Compared by content.
struct NodeRefs : std::span<const NodeId> {
  using std::span<const NodeId>::span;
  NodeRefs(std::span<const NodeId> s) : std::span<const NodeId>(s) {}  // NOLINT: a view is a view
  friend bool operator==(NodeRefs a, NodeRefs b) { return std::ranges::equal(a, b); }
};

using RefBlock = std::shared_ptr<const NodeId[]>;

// Copies reference lists into blocks of at least `block_size` ids, starting
// a new block where a list does not fit in the current one's room (blocks
// never grow, so earlier views stay valid). One writer per thread.
class RefBlockWriter {
 public:
  explicit RefBlockWriter(size_t block_size = size_t{1} << 14) : block_size_(block_size) {}

  NodeRefs add(std::span<const NodeId> ids) {
    if (ids.size() > room_) start_block(ids.size());
    NodeId* const at = next_;
    std::copy(ids.begin(), ids.end(), at);
    next_ += ids.size();
    room_ -= ids.size();
    return NodeRefs(at, ids.size());
  }

  // The blocks written so far, for the graph whose nodes view them.
  std::vector<RefBlock> take() {
    std::vector<RefBlock> out(std::make_move_iterator(blocks_.begin()), std::make_move_iterator(blocks_.end()));
    blocks_.clear();
    next_ = nullptr;
    room_ = 0;
    return out;
  }

 private:
  void start_block(size_t at_least) {
    const size_t size = std::max(block_size_, at_least);
    auto block = std::make_shared_for_overwrite<NodeId[]>(size);
    next_ = block.get();
    room_ = size;
    blocks_.push_back(std::move(block));
  }

  size_t block_size_;
  NodeId* next_ = nullptr;
  size_t room_ = 0;
  std::vector<std::shared_ptr<NodeId[]>> blocks_;
};

}  // namespace pt
