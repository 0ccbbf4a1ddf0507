#include "k100/codeobj/metadata_node.h"

#include <algorithm>
#include <limits>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

[[noreturn]] void wrong_kind(MetaNode::Kind have, const char* want) {
  throw Error(std::string("metadata value is ") + std::string(MetaNode::kind_name(have)) +
              ", expected " + want);
}

auto key_less = [](const std::pair<std::string, MetaNode>& e, std::string_view k) {
  return std::string_view(e.first) < k;
};

}  // namespace

MetaNode MetaNode::boolean(bool v) {
  MetaNode n;
  n.kind_ = Kind::Bool;
  n.b_ = v;
  return n;
}
MetaNode MetaNode::integer(int64_t v) {
  MetaNode n;
  n.kind_ = Kind::Int;
  n.i_ = v;
  return n;
}
MetaNode MetaNode::uinteger(uint64_t v) {
  MetaNode n;
  n.kind_ = Kind::UInt;
  n.u_ = v;
  return n;
}
MetaNode MetaNode::real(double v) {
  MetaNode n;
  n.kind_ = Kind::Float;
  n.f_ = v;
  return n;
}
MetaNode MetaNode::string(std::string v) {
  MetaNode n;
  n.kind_ = Kind::String;
  n.s_ = std::move(v);
  return n;
}
MetaNode MetaNode::binary(std::string bytes) {
  MetaNode n;
  n.kind_ = Kind::Binary;
  n.s_ = std::move(bytes);
  return n;
}
MetaNode MetaNode::array(Array items) {
  MetaNode n;
  n.kind_ = Kind::Array;
  n.arr_ = std::move(items);
  return n;
}
MetaNode MetaNode::map() {
  MetaNode n;
  n.kind_ = Kind::Map;
  return n;
}

bool MetaNode::as_bool() const {
  if (kind_ != Kind::Bool) wrong_kind(kind_, "a boolean");
  return b_;
}

int64_t MetaNode::as_int() const {
  if (kind_ == Kind::Int) return i_;
  if (kind_ == Kind::UInt) {
    if (u_ > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw Error("metadata integer " + std::to_string(u_) + " does not fit in int64");
    return static_cast<int64_t>(u_);
  }
  wrong_kind(kind_, "an integer");
}

uint64_t MetaNode::as_uint() const {
  if (kind_ == Kind::UInt) return u_;
  if (kind_ == Kind::Int) {
    if (i_ < 0) throw Error("metadata integer " + std::to_string(i_) + " is negative");
    return static_cast<uint64_t>(i_);
  }
  wrong_kind(kind_, "an integer");
}

double MetaNode::as_float() const {
  if (kind_ == Kind::Float) return f_;
  wrong_kind(kind_, "a float");
}

const std::string& MetaNode::as_string() const {
  if (kind_ != Kind::String && kind_ != Kind::Binary) wrong_kind(kind_, "a string");
  return s_;
}

const MetaNode::Array& MetaNode::items() const {
  if (kind_ != Kind::Array) wrong_kind(kind_, "an array");
  return arr_;
}

MetaNode::Array& MetaNode::items() {
  if (kind_ != Kind::Array) wrong_kind(kind_, "an array");
  return arr_;
}

const MetaNode::Map& MetaNode::entries() const {
  if (kind_ != Kind::Map) wrong_kind(kind_, "a map");
  return map_;
}

const MetaNode* MetaNode::find(std::string_view key) const {
  if (kind_ != Kind::Map) return nullptr;
  auto it = std::lower_bound(map_.begin(), map_.end(), key, key_less);
  if (it == map_.end() || it->first != key) return nullptr;
  return &it->second;
}

MetaNode* MetaNode::find(std::string_view key) {
  return const_cast<MetaNode*>(static_cast<const MetaNode*>(this)->find(key));
}

MetaNode& MetaNode::set(std::string_view key, MetaNode value) {
  MetaNode& slot = (*this)[key];
  slot = std::move(value);
  return slot;
}

MetaNode& MetaNode::operator[](std::string_view key) {
  if (kind_ == Kind::Nil) kind_ = Kind::Map;
  if (kind_ != Kind::Map) wrong_kind(kind_, "a map");
  auto it = std::lower_bound(map_.begin(), map_.end(), key, key_less);
  if (it != map_.end() && it->first == key) return it->second;
  it = map_.insert(it, {std::string(key), MetaNode()});
  return it->second;
}

bool MetaNode::erase(std::string_view key) {
  if (kind_ != Kind::Map) return false;
  auto it = std::lower_bound(map_.begin(), map_.end(), key, key_less);
  if (it == map_.end() || it->first != key) return false;
  map_.erase(it);
  return true;
}

void MetaNode::push_back(MetaNode value) {
  if (kind_ == Kind::Nil) kind_ = Kind::Array;
  if (kind_ != Kind::Array) wrong_kind(kind_, "an array");
  arr_.push_back(std::move(value));
}

size_t MetaNode::size() const {
  if (kind_ == Kind::Array) return arr_.size();
  if (kind_ == Kind::Map) return map_.size();
  return 0;
}

bool operator==(const MetaNode& a, const MetaNode& b) {
  using K = MetaNode::Kind;
  if (a.is_integer() && b.is_integer()) {
    bool an = a.kind_ == K::Int && a.i_ < 0, bn = b.kind_ == K::Int && b.i_ < 0;
    if (an || bn) return an && bn && a.i_ == b.i_;
    uint64_t av = a.kind_ == K::Int ? uint64_t(a.i_) : a.u_;
    uint64_t bv = b.kind_ == K::Int ? uint64_t(b.i_) : b.u_;
    return av == bv;
  }
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case K::Nil:
      return true;
    case K::Bool:
      return a.b_ == b.b_;
    case K::Float:
      return a.f_ == b.f_;
    case K::String:
    case K::Binary:
      return a.s_ == b.s_;
    case K::Array:
      return a.arr_ == b.arr_;
    case K::Map:
      return a.map_ == b.map_;
    default:
      return false;
  }
}

std::string_view MetaNode::kind_name(Kind k) {
  switch (k) {
    case Kind::Nil:
      return "nil";
    case Kind::Bool:
      return "a boolean";
    case Kind::Int:
      return "an integer";
    case Kind::UInt:
      return "an integer";
    case Kind::Float:
      return "a float";
    case Kind::String:
      return "a string";
    case Kind::Binary:
      return "binary data";
    case Kind::Array:
      return "an array";
    case Kind::Map:
      return "a map";
  }
  return "?";
}

}  // namespace k100::codeobj
