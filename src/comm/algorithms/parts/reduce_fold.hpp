// Folding p ranks onto the largest power of two p2 <= p, as MPICH does for non-power-of-two
// counts: with rem = p - p2, ranks 0..2*rem-1 pair up; the even rank of a pair hands its data
// to the odd one and sits out the power-of-two phase, getting its result at the end. Ranks
// of the power-of-two phase are numbered v = 0..p2-1 ("newranks").
#pragma once

namespace commpress::comm::detail {

struct Fold {
  int p = 1, p2 = 1, rem = 0;

  explicit Fold(int size) : p(size) {
    while (p2 * 2 <= p) p2 *= 2;
    rem = p - p2;
  }
  bool folded(int rank) const { return rank < 2 * rem; }        // in a pair
  bool sits_out(int rank) const { return folded(rank) && rank % 2 == 0; }
  int newrank(int rank) const { return folded(rank) ? (rank % 2 ? rank / 2 : -1) : rank - rem; }
  int rank_of(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // The ranks newrank v stands for, as a range of rank numbers [first, end): their blocks
  // form v's "super-block".
  int first_rank(int v) const { return v < rem ? 2 * v : v + rem; }
  int end_rank(int v) const { return v < rem ? 2 * v + 2 : v + rem + 1; }
};

}  // namespace commpress::comm::detail
