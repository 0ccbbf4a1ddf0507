#include "k100/kernels/lookup_list.h"

namespace k100::kernels {

std::vector<std::string> split_lookup_list(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char c : list) {
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace k100::kernels
