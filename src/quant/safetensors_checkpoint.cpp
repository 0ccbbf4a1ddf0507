#include "k100/quant/safetensors_checkpoint.h"

#include <filesystem>
#include <map>
#include <unordered_map>

#include "k100/base/error.h"
#include "k100/quant/json_document.h"

namespace k100::quant {

namespace fs = std::filesystem;

struct SafetensorsCheckpoint::State {
  std::string origin;
  std::vector<SafetensorsFile> files;
  std::vector<Entry> entries;
  std::unordered_map<std::string, size_t> index;
};

namespace {

constexpr const char* kIndexName = "model.safetensors.index.json";
constexpr const char* kSingleName = "model.safetensors";

// A shard name from the index: a plain file name in the index's directory
// (no separator, not "." or ".."), so an index cannot make the loader open
// files elsewhere.
void check_shard_name(const std::string& index, const std::string& tensor, const std::string& shard) {
  if (shard.empty() || shard == "." || shard == ".." || shard.find('/') != std::string::npos ||
      shard.find('\\') != std::string::npos || shard.find('\0') != std::string::npos)
    throw Error(index + ": 'weight_map." + tensor + "' names the shard '" + shard +
                "', which is not a file name in the index's directory");
}

}  // namespace

SafetensorsCheckpoint SafetensorsCheckpoint::open(const std::string& path) {
  auto s = std::make_unique<State>();
  std::error_code ec;
  std::string index_path, single_path;
  if (fs::is_directory(path, ec)) {
    const fs::path dir(path);
    if (fs::exists(dir / kIndexName, ec)) index_path = (dir / kIndexName).string();
    else if (fs::exists(dir / kSingleName, ec)) single_path = (dir / kSingleName).string();
    else
      throw Error(path + ": no " + std::string(kSingleName) + " or " + kIndexName + " in the directory");
  } else if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    index_path = path;
  } else {
    single_path = path;
  }

  if (!single_path.empty()) {
    s->origin = single_path;
    s->files.push_back(SafetensorsFile::open(single_path));
  } else {
    s->origin = index_path;
    const Json doc = read_json_file(index_path);
    const JsonObject top(doc, index_path);
    const JsonObject map = top.object("weight_map");
    const fs::path dir = fs::path(index_path).parent_path();
    std::map<std::string, size_t> shard_of;            // shard name -> files index
    std::vector<std::pair<std::string, size_t>> want;  // tensor -> files index, index order
    for (auto it = map.json().begin(); it != map.json().end(); ++it) {
      if (!it->is_string()) map.fail(it.key(), std::string("is ") + json_kind(*it) + ", expected a shard file name");
      const std::string shard = it->get<std::string>();
      check_shard_name(index_path, it.key(), shard);
      auto [pos, fresh] = shard_of.emplace(shard, s->files.size());
      if (fresh) s->files.push_back(SafetensorsFile::open((dir / shard).string()));
      want.emplace_back(it.key(), pos->second);
    }
    if (want.empty()) throw Error(index_path + ": 'weight_map' lists no tensor");
    std::unordered_map<std::string, size_t> listed;
    for (const auto& [name, f] : want) {
      listed.emplace(name, f);
      if (!s->files[f].find(name))
        throw Error(index_path + ": 'weight_map' puts tensor '" + name + "' in " + s->files[f].path() +
                    ", which does not hold it");
    }
    for (const SafetensorsFile& f : s->files)
      for (const SafetensorsTensor& t : f.tensors()) {
        auto it = listed.find(t.name);
        if (it == listed.end())
          throw Error(index_path + ": tensor '" + t.name + "' of " + f.path() + " is not in 'weight_map'");
        if (&s->files[it->second] != &f)
          throw Error(index_path + ": tensor '" + t.name + "' is in " + f.path() + " and in " +
                      s->files[it->second].path() + "; 'weight_map' names the latter");
      }
  }

  for (const SafetensorsFile& f : s->files)
    for (const SafetensorsTensor& t : f.tensors()) {
      if (!s->index.emplace(t.name, s->entries.size()).second)
        throw Error(s->origin + ": tensor '" + t.name + "' appears in two shards");
      s->entries.push_back({&f, &t});
    }
  return SafetensorsCheckpoint(std::move(s));
}

SafetensorsCheckpoint::SafetensorsCheckpoint(std::unique_ptr<State> s) : s_(std::move(s)) {}
SafetensorsCheckpoint::SafetensorsCheckpoint(SafetensorsCheckpoint&&) noexcept = default;
SafetensorsCheckpoint& SafetensorsCheckpoint::operator=(SafetensorsCheckpoint&&) noexcept = default;
SafetensorsCheckpoint::~SafetensorsCheckpoint() = default;

const std::string& SafetensorsCheckpoint::origin() const { return s_->origin; }
const std::vector<SafetensorsFile>& SafetensorsCheckpoint::files() const { return s_->files; }
const std::vector<SafetensorsCheckpoint::Entry>& SafetensorsCheckpoint::tensors() const { return s_->entries; }

const SafetensorsCheckpoint::Entry* SafetensorsCheckpoint::find(std::string_view name) const {
  auto it = s_->index.find(std::string(name));
  return it == s_->index.end() ? nullptr : &s_->entries[it->second];
}

const SafetensorsCheckpoint::Entry& SafetensorsCheckpoint::at(std::string_view name) const {
  const Entry* e = find(name);
  if (!e) throw Error(s_->origin + ": no tensor '" + std::string(name) + "'");
  return *e;
}

uint64_t SafetensorsCheckpoint::total_bytes() const {
  uint64_t n = 0;
  for (const Entry& e : s_->entries) n += e.tensor->size();
  return n;
}

}  // namespace k100::quant
