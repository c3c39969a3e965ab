// pathfinder: one dynamic-programming row step of a minimum-cost path from the top row of a
// grid to the bottom row, moving down, down-left or down-right.
//
// Workload of seeds 000/002 (Rodinia-style "pathfinder"). All values are int.
//
// Kernel pathfinder_step: one thread per column.
//   Launch: 1D blocks of exactly 256 threads (BLOCK = 256), 1D grid
//   ceil(cols / 256). Static shared memory: 258 ints (the block's columns of
//   prev plus one halo element on each side).
// Inputs
//   wall_row  int[cols]: the costs of the grid row being entered.
//   prev      int[cols]: the best path costs for the row above.
//   cols      row length; any positive value.
// Output
//   dst       int[cols]: dst[i] = wall_row[i] + min(prev[i-1], prev[i], prev[i+1]),
//             where neighbours outside [0, cols) are ignored.
// Host loop: prev = wall[0]; for each later row r: pathfinder_step(wall[r], prev, dst);
// swap(prev, dst). The answer is min over the last row. Sums must not overflow int.

#include <limits.h>

#define BLOCK 256

extern "C" __global__ void pathfinder_step(const int *wall_row, const int *prev, int *dst, int cols)
{
    __shared__ int s[BLOCK + 2];

    int i = blockIdx.x * BLOCK + threadIdx.x;
    int t = threadIdx.x + 1;

    s[t] = i < cols ? prev[i] : INT_MAX;
    if (threadIdx.x == 0)
        s[0] = i > 0 && i - 1 < cols ? prev[i - 1] : INT_MAX;
    if (threadIdx.x == BLOCK - 1)
        s[BLOCK + 1] = i + 1 < cols ? prev[i + 1] : INT_MAX;
    __syncthreads();

    if (i < cols) {
        int best = min(s[t - 1], min(s[t], s[t + 1]));
        dst[i] = wall_row[i] + best;
    }
}
