#include "k100/quant/json_document.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "k100/base/error.h"

namespace k100::quant {

Json parse_json(std::string_view text, const std::string& where) {
  // Keys already seen in each open object, to refuse repeated ones; the
  // parser's callback sees every key before its value.
  std::vector<std::set<std::string>> open;
  std::string repeated;
  auto cb = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start: open.emplace_back(); break;
      case Json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!open.empty() && !open.back().insert(parsed.get<std::string>()).second && repeated.empty())
          repeated = parsed.get<std::string>();
        break;
      default: break;
    }
    return true;
  };
  Json v;
  try {
    v = Json::parse(text.begin(), text.end(), cb, true, false);
  } catch (const Json::parse_error& e) {
    // e.byte counts from 1 and points at the character that failed
    throw Error(where + ": not valid JSON at byte " + std::to_string(e.byte ? e.byte - 1 : 0) + ": " +
                std::string(e.what()).substr(std::string(e.what()).find(':') + 2));
  } catch (const Json::exception& e) {
    throw Error(where + ": not valid JSON: " + e.what());
  }
  if (!repeated.empty()) throw Error(where + ": the key '" + repeated + "' appears twice in one object");
  return v;
}

Json read_json_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path + ": cannot open");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw Error(path + ": cannot read");
  return parse_json(s.str(), path);
}

const char* json_kind(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    default: return "a value of another kind";
  }
}

int64_t json_integer(const Json& v, const std::string& what) {
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > uint64_t(INT64_MAX)) throw Error(what + " is too large");
    return int64_t(v.get<uint64_t>());
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return int64_t(d);
    throw Error(what + " is " + v.dump() + ", expected an integer");
  }
  throw Error(what + " is " + json_kind(v) + ", expected an integer");
}

JsonObject::JsonObject(const Json& v, std::string where, std::string path)
    : v_(v), where_(std::move(where)), path_(std::move(path)) {
  if (!v.is_object())
    throw Error(where_ + ": " + (path_.empty() ? std::string("the document") : "'" + path_ + "'") + " is " +
                json_kind(v) + ", expected an object");
}

std::string JsonObject::name(std::string_view key) const {
  return "'" + (path_.empty() ? std::string(key) : path_ + "." + std::string(key)) + "'";
}

void JsonObject::fail(std::string_view key, const std::string& why) const {
  throw Error(where_ + ": " + name(key) + " " + why);
}

const Json* JsonObject::find(std::string_view key) const {
  auto it = v_.find(key);
  if (it == v_.end() || it->is_null()) return nullptr;
  return &*it;
}

const Json& JsonObject::at(std::string_view key) const {
  const Json* v = find(key);
  if (!v) fail(key, "is missing");
  return *v;
}

JsonObject JsonObject::object(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_object()) fail(key, std::string("is ") + json_kind(v) + ", expected an object");
  return JsonObject(v, where_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

std::optional<JsonObject> JsonObject::optional_object(std::string_view key) const {
  if (!find(key)) return std::nullopt;
  return object(key);
}

std::string JsonObject::string(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_string()) fail(key, std::string("is ") + json_kind(v) + ", expected a string");
  return v.get<std::string>();
}

std::optional<std::string> JsonObject::optional_string(std::string_view key) const {
  if (!find(key)) return std::nullopt;
  return string(key);
}

int64_t JsonObject::integer(std::string_view key) const {
  return json_integer(at(key), where_ + ": " + name(key));
}

std::optional<int64_t> JsonObject::optional_integer(std::string_view key) const {
  if (!find(key)) return std::nullopt;
  return integer(key);
}

double JsonObject::number(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_number()) fail(key, std::string("is ") + json_kind(v) + ", expected a number");
  return v.get<double>();
}

std::optional<double> JsonObject::optional_number(std::string_view key) const {
  if (!find(key)) return std::nullopt;
  return number(key);
}

bool JsonObject::boolean(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_boolean()) fail(key, std::string("is ") + json_kind(v) + ", expected true or false");
  return v.get<bool>();
}

std::optional<bool> JsonObject::optional_boolean(std::string_view key) const {
  if (!find(key)) return std::nullopt;
  return boolean(key);
}

std::vector<int64_t> JsonObject::integers(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_array()) fail(key, std::string("is ") + json_kind(v) + ", expected an array of integers");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(json_integer(v[i], where_ + ": " + name(key) + " element " + std::to_string(i)));
  return out;
}

std::vector<std::string> JsonObject::strings(std::string_view key) const {
  const Json& v = at(key);
  if (!v.is_array()) fail(key, std::string("is ") + json_kind(v) + ", expected an array of strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      fail(key, "element " + std::to_string(i) + " is " + json_kind(v[i]) + ", expected a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

}  // namespace k100::quant
