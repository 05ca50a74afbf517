// Name -> codec lookup. Codecs register themselves at load time (COMMPRESS_REGISTER_CODEC);
// the table is built once, before main, and only read afterwards.
#include <algorithm>
#include <map>
#include <mutex>

#include "commpress/codec.hpp"
#include "core/assert.hpp"

namespace commpress::codec {

namespace {

// Names and ids are kept beside the codecs, contiguous, because every operation looks a codec
// up by name and every decoded frame by id: asking each codec object (virtual calls into a
// dozen separate allocations) cost a cold collective call microseconds in cache misses.
// A codec's name() views its own storage, which lives as long as the codec.
struct Registry {
  std::mutex mu;
  std::vector<std::unique_ptr<Codec>> codecs;
  std::vector<std::string_view> names;
  std::vector<CodecId> ids;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

namespace detail {

bool register_codec(std::unique_ptr<Codec> codec) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (const auto& c : r.codecs) COMMPRESS_ASSERT(c->name() != codec->name());
  r.names.push_back(codec->name());
  r.ids.push_back(codec->id());
  r.codecs.push_back(std::move(codec));
  return true;
}

}  // namespace detail

std::vector<const Codec*> list_codecs() {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<const Codec*> out;
  for (const auto& c : r.codecs) out.push_back(c.get());
  std::sort(out.begin(), out.end(), [](const Codec* a, const Codec* b) {
    return a->id() != b->id() ? a->id() < b->id() : a->name() < b->name();
  });
  return out;
}

// Runs on every operation: no copy, no sort (names are unique).
const Codec* find_codec(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  for (size_t i = 0; i < r.names.size(); ++i)
    if (r.names[i] == name) return r.codecs[i].get();
  return nullptr;
}

Result<const Codec*> get_codec(std::string_view name) {
  if (const Codec* c = find_codec(name)) return c;
  std::string known;
  for (const Codec* c : list_codecs()) known += (known.empty() ? "" : ", ") + std::string(c->name());
  return Status{ErrorCode::invalid_argument,
                "unknown codec '" + std::string(name) + "'; known codecs: " + known};
}

// Runs on every frame decoded (hundreds per collective with small chunks): no copy, no sort.
// Several names share an id: the first in list order, i.e. the smallest name.
Result<const Codec*> codec_for_id(CodecId id) {
  const Codec* first = nullptr;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    const size_t none = r.ids.size();
    size_t best = none;
    for (size_t i = 0; i < r.ids.size(); ++i)
      if (r.ids[i] == id && (best == none || r.names[i] < r.names[best])) best = i;
    if (best != none) first = r.codecs[best].get();
  }
  if (first) return first;
  return Status{ErrorCode::unsupported,
                "no codec with id " + std::to_string(int(id)) + " is built into this library"};
}

}  // namespace commpress::codec
