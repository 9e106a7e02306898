// course/scan_status.cuh: the state of a tile in the decoupled look-back (course/scan.cuh, day 8), one
// 64-bit word so that the flag and the value are published together: the flag in the high 32 bits,
// the value's 32 bits in the low ones.
#pragma once
#include "common.cuh"

namespace course {

enum TileFlag : uint32_t {
  TILE_EMPTY = 0,      // nothing published yet (the zeroed state)
  TILE_AGGREGATE = 1,  // value = the sum of this tile alone
  TILE_PREFIX = 2,     // value = the sum of this tile and every tile before it
};

}  // namespace course
