#pragma once
#include <cstddef>
#include <cstdint>

namespace clawloop {

// dst = tile(src, reps) for 4-byte elements; shapes of rank <= 8, row-major.
void tile4(const uint32_t* src, uint32_t* dst, const int64_t* shape, const int64_t* reps, int rank);

}  // namespace clawloop
