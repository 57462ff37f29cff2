#include "analysis/node_op_classes.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>


namespace pt {

namespace {

// Packets are interned per graph (Graph::packets), so nodes of one op share
// one packet string: the classes are looked up once per distinct string,
// found again by its address and length in a small open-addressing table.
// (Equal packets at two addresses just get two entries.)
class PacketMemo {
 public:
  // Small at first: a graph has a few hundred distinct packets, and a table
  // sized by the node count was 48 fresh pages on gpt2_124m.
  explicit PacketMemo(size_t nodes) : slots_(std::bit_ceil(std::min<size_t>(nodes, 256) * 2 + 2)) {}

  // The bits stored for `packet`, or `classify(packet)` stored on first sight.
  template <class Classify>
  uint8_t get(std::string_view packet, const Classify& classify) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = home(packet); ; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.data == packet.data() && s.size == packet.size() && s.used) return s.bits;
      if (!s.used) {
        if (++used_ * 2 > slots_.size()) grow();
        return insert(packet, classify(packet));
      }
    }
  }

 private:
  struct Slot {
    const char* data = nullptr;
    size_t size = 0;
    uint8_t bits = 0;
    bool used = false;
  };

  // Fibonacci hashing of the address.
  size_t home(std::string_view packet) const {
    return static_cast<size_t>(reinterpret_cast<uintptr_t>(packet.data()) * 0x9E3779B97F4A7C15ull >> 20) &
           (slots_.size() - 1);
  }

  uint8_t insert(std::string_view packet, uint8_t bits) {
    const size_t mask = slots_.size() - 1;
    size_t i = home(packet);
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = {packet.data(), packet.size(), bits, true};
    return bits;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.used) insert(std::string_view(s.data, s.size), s.bits);
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace

NodeOpClasses::NodeOpClasses(const Graph& g, const OpClasses& ops)
    : bits_(static_cast<size_t>(g.size()), 0) {
  PacketMemo memo(static_cast<size_t>(g.size()));
  for (NodeId id = 0; id < g.size(); ++id) {
      const Node& n = g[id];
      bits_[static_cast<size_t>(id)] = memo.get(n.packet, [&](std::string_view) {
        uint8_t bits = 0;
        if (ops.is_view(n)) bits |= kView;
        if (ops.is_fusible_op(n)) bits |= kFusible;
        if (ops.is_compute_intensive(n)) bits |= kComputeIntensive;
        if (ops.is_recomputable(n)) bits |= kRecomputable;
        if (ops.is_random(n)) bits |= kRandom;
        if (n.packet == "aten.cat") bits |= kCat;
        return bits;
      });
  }
}

}  // namespace pt
