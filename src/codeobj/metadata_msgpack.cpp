// MessagePack <-> MetaNode, with msgpack-cxx doing the wire format.
#ifndef MSGPACK_NO_BOOST
#define MSGPACK_NO_BOOST
#endif
#include <cmath>
#include <limits>
#include <msgpack.hpp>

#include "k100/base/error.h"
#include "k100/codeobj/metadata_node.h"

namespace k100::codeobj {
namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

void pack(Packer& pk, const MetaNode& n) {
  using K = MetaNode::Kind;
  switch (n.kind()) {
    case K::Nil:
      pk.pack_nil();
      break;
    case K::Bool:
      n.as_bool() ? pk.pack_true() : pk.pack_false();
      break;
    case K::Int: {
      int64_t v = n.as_int();
      if (v >= 0)
        pk.pack_uint64(static_cast<uint64_t>(v));
      else
        pk.pack_int64(v);
      break;
    }
    case K::UInt:
      pk.pack_uint64(n.as_uint());
      break;
    case K::Float: {
      // LLVM's msgpack writer uses float32 whenever the magnitude is in float's normal range.
      double d = n.as_float();
      double a = std::fabs(d);
      if (a >= std::numeric_limits<float>::min() && a <= std::numeric_limits<float>::max())
        pk.pack_float(static_cast<float>(d));
      else
        pk.pack_double(d);
      break;
    }
    case K::String: {
      const std::string& s = n.as_string();
      pk.pack_str(static_cast<uint32_t>(s.size()));
      pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
      break;
    }
    case K::Binary: {
      const std::string& s = n.as_string();
      pk.pack_bin(static_cast<uint32_t>(s.size()));
      pk.pack_bin_body(s.data(), static_cast<uint32_t>(s.size()));
      break;
    }
    case K::Array:
      pk.pack_array(static_cast<uint32_t>(n.items().size()));
      for (const auto& e : n.items()) pack(pk, e);
      break;
    case K::Map:
      pk.pack_map(static_cast<uint32_t>(n.entries().size()));
      for (const auto& [k, v] : n.entries()) {
        pk.pack_str(static_cast<uint32_t>(k.size()));
        pk.pack_str_body(k.data(), static_cast<uint32_t>(k.size()));
        pack(pk, v);
      }
      break;
  }
}

MetaNode convert(const msgpack::object& o, std::string_view origin) {
  switch (o.type) {
    case msgpack::type::NIL:
      return MetaNode();
    case msgpack::type::BOOLEAN:
      return MetaNode::boolean(o.via.boolean);
    case msgpack::type::POSITIVE_INTEGER:
      return MetaNode::uinteger(o.via.u64);
    case msgpack::type::NEGATIVE_INTEGER:
      return MetaNode::integer(o.via.i64);
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
      return MetaNode::real(o.via.f64);
    case msgpack::type::STR:
      return MetaNode::string(std::string(o.via.str.ptr, o.via.str.size));
    case msgpack::type::BIN:
      return MetaNode::binary(std::string(o.via.bin.ptr, o.via.bin.size));
    case msgpack::type::ARRAY: {
      MetaNode::Array items;
      items.reserve(o.via.array.size);
      for (uint32_t i = 0; i < o.via.array.size; ++i)
        items.push_back(convert(o.via.array.ptr[i], origin));
      return MetaNode::array(std::move(items));
    }
    case msgpack::type::MAP: {
      MetaNode m = MetaNode::map();
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        if (kv.key.type != msgpack::type::STR)
          throw Error(std::string(origin) + ": metadata map key is not a string");
        std::string key(kv.key.via.str.ptr, kv.key.via.str.size);
        if (m.find(key))
          throw Error(std::string(origin) + ": duplicate metadata key '" + key + "'");
        m.set(key, convert(kv.val, origin));
      }
      return m;
    }
    case msgpack::type::EXT:
      throw Error(std::string(origin) + ": MessagePack extension types are not metadata");
  }
  throw Error(std::string(origin) + ": unknown MessagePack type");
}

}  // namespace

std::vector<uint8_t> encode_msgpack(const MetaNode& node) {
  msgpack::sbuffer buf;
  Packer pk(buf);
  pack(pk, node);
  return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(buf.data()),
                              reinterpret_cast<const uint8_t*>(buf.data()) + buf.size());
}

MetaNode decode_msgpack(std::span<const uint8_t> bytes, std::string_view origin) {
  if (bytes.empty()) throw Error(std::string(origin) + ": empty MessagePack metadata");
  // Every element needs at least one byte, so no count can exceed the input size; this
  // keeps corrupt length fields from allocating huge arrays.
  size_t n = bytes.size();
  msgpack::unpack_limit limit(n, n, n, n, 0, 64);
  size_t off = 0;
  msgpack::object_handle oh;
  try {
    oh = msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size(), off, nullptr,
                         nullptr, limit);
  } catch (const msgpack::insufficient_bytes&) {
    throw Error(std::string(origin) + ": MessagePack metadata is truncated (" +
                std::to_string(bytes.size()) + " bytes)");
  } catch (const std::bad_alloc&) {
    throw Error(std::string(origin) + ": MessagePack metadata declares impossible sizes");
  } catch (const std::exception& e) {
    throw Error(std::string(origin) + ": malformed MessagePack metadata near byte " +
                std::to_string(off) + " (" + e.what() + ")");
  }
  if (off != bytes.size())
    throw Error(std::string(origin) + ": " + std::to_string(bytes.size() - off) +
                " unexpected bytes after the MessagePack metadata at byte " + std::to_string(off));
  return convert(oh.get(), origin);
}

}  // namespace k100::codeobj
