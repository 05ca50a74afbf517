#include "comm/selection/choice_cache.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace commpress::comm::detail {

namespace {

// The last N entries one thread kept, the oldest replaced first.
template <class Entry, size_t N>
class Recent {
 public:
  template <class Match>
  const Entry* find(const Match& match) const {
    for (const Entry& e : entries_)
      if (e.used && match(e)) return &e;
    return nullptr;
  }
  Entry& replace_oldest() {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % N;
    e.used = true;
    return e;
  }

 private:
  std::array<Entry, N> entries_{};
  size_t next_ = 0;
};

struct ChoiceEntry {
  bool used = false;
  int64_t fingerprint = 0;
  const model::CodecRates* rates = nullptr;
  model::Scenario scenario;
  std::vector<Algorithm> candidates;
  double margin = 0;
  model::Choice choice;
};

struct BreakEvenEntry {
  bool used = false;
  int64_t fingerprint = 0;
  const model::CodecRates* rates = nullptr;
  double ratio = 0;
  double bytes = 0;
};

}  // namespace

model::Choice remembered_choice(const model::MachineProfile& m, int64_t profile_fingerprint,
                                const model::CodecRates* rates, const model::Scenario& s,
                                std::span<const Algorithm> candidates, double margin) {
  // A handful: the calls of one loop iteration (an allreduce and a bcast, each priced twice).
  thread_local Recent<ChoiceEntry, 8> kept;
  if (const ChoiceEntry* e = kept.find([&](const ChoiceEntry& k) {
        return k.fingerprint == profile_fingerprint && k.rates == rates && k.margin == margin &&
               k.scenario == s &&
               std::equal(k.candidates.begin(), k.candidates.end(), candidates.begin(),
                          candidates.end());
      }))
    return e->choice;
  ChoiceEntry& e = kept.replace_oldest();
  e.choice = model::choose(m, rates, s, candidates, margin);
  e.fingerprint = profile_fingerprint;
  e.rates = rates;
  e.scenario = s;
  e.candidates.assign(candidates.begin(), candidates.end());
  e.margin = margin;
  return e.choice;
}

double remembered_break_even(const model::MachineProfile& m, int64_t profile_fingerprint,
                             const model::CodecRates& rates, double ratio) {
  thread_local Recent<BreakEvenEntry, 4> kept;
  if (const BreakEvenEntry* e = kept.find([&](const BreakEvenEntry& k) {
        return k.fingerprint == profile_fingerprint && k.rates == &rates && k.ratio == ratio;
      }))
    return e->bytes;
  const double bytes = model::break_even_bytes(m, rates, ratio);
  kept.replace_oldest() = {true, profile_fingerprint, &rates, ratio, bytes};
  return bytes;
}

}  // namespace commpress::comm::detail
