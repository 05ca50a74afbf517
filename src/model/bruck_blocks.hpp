// Bruck's all-to-all: which blocks a step carries. Shared by the schedule (comm) and its cost
// model, so the model prices exactly the messages the schedule sends.
#pragma once

namespace commpress::model {

// Blocks a Bruck step with distance bit `d` carries among p ranks: the indices 1..p-1 with
// that bit set.
inline int bruck_blocks(int p, int d) {
  int n = 0;
  for (int j = 1; j < p; ++j) n += (j & d) ? 1 : 0;
  return n;
}

}  // namespace commpress::model
