#pragma once

// For the references: a sum in double over four interleaved partial sums. One chain of dependent
// additions would bound a one-thread-per-output reference's speed on emu, where it is most of a
// linear family's check, and the order changes nothing a bf16 output can show.
struct DoubleSum {
  double part[4] = {};

  // term(begin) + ... + term(end - 1)
  template <class Term>
  __device__ __forceinline__ void add(int begin, int end, Term term) {
    const int whole = end - (end - begin) % 4;
    for (int k = begin; k < whole; k += 4)
#pragma unroll
      for (int j = 0; j < 4; ++j) part[j] += term(k + j);
    for (int k = whole; k < end; ++k) part[0] += term(k);
  }
  __device__ __forceinline__ double total() const { return (part[0] + part[1]) + (part[2] + part[3]); }
};
