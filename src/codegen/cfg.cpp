#include "k100/base/error.h"
#include "k100/codegen/passes.h"

namespace k100::codegen {

namespace {

int block_of(const MFunction& f, int label, const MInst& from) {
  if (label < 0 || size_t(label) >= f.label_block.size())
    throw Error("kernel '" + f.name + "': " + from.name() + " goes to a label of another kernel");
  const int b = f.label_block[size_t(label)];
  if (b < 0)
    throw Error("kernel '" + f.name + "': " + (from.is_pseudo() ? std::string(pseudo_name(from.pseudo)) : from.name()) +
                " goes to label '" + f.label_names[size_t(label)] + "', which is never bound");
  return b;
}

void add_unique(std::vector<int>& v, int x) {
  for (int y : v)
    if (y == x) return;
  v.push_back(x);
}

}  // namespace

void build_cfg(MFunction& f) {
  const int n = int(f.blocks.size());
  for (MBlock& b : f.blocks) {
    b.succ.clear(), b.pred.clear();
    b.logical_succ.clear(), b.logical_pred.clear();
  }
  for (int i = 0; i < n; ++i) {
    MBlock& b = f.blocks[size_t(i)];
    const MInst* last = b.insts.empty() ? nullptr : &b.insts.back();
    if (last && !last->is_pseudo() && last->indirect < 0 &&
        (last->name() == "s_setpc_b64" || last->name() == "s_swappc_b64"))
      throw Error("kernel '" + f.name + "': " + last->name() +
                  " jumps to an address the layer cannot follow; use call(), ret() or jump_table()");
    if (last && !last->is_pseudo() && is_terminator(*last)) {
      if (falls_through(*last) && i + 1 < n) add_unique(b.succ, i + 1);
      if (last->label >= 0) add_unique(b.succ, block_of(f, last->label, *last));
      if (last->indirect >= 0)
        for (int l : f.indirect[size_t(last->indirect)].labels) add_unique(b.succ, block_of(f, l, *last));
    } else if (i + 1 < n) {
      add_unique(b.succ, i + 1);
    }
    if (b.logical_override) {
      for (int l : b.logical_labels) add_unique(b.logical_succ, block_of(f, l, b.insts.back()));
    } else {
      b.logical_succ = b.succ;
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int s : f.blocks[size_t(i)].succ) f.blocks[size_t(s)].pred.push_back(i);
    for (int s : f.blocks[size_t(i)].logical_succ) f.blocks[size_t(s)].logical_pred.push_back(i);
  }
  f.cfg_valid = true;
}

}  // namespace k100::codegen
