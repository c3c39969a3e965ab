// hotspot: one explicit time step of a 2D thermal simulation (5-point stencil) of a chip
// given its power map.
//
// Workload of seeds 000/002 (Rodinia-style "hotspot").
//
// Kernel hotspot_step: one thread per grid cell.
//   Launch: block (16, 16) exactly (BLOCK = 16), grid (ceil(cols/16), ceil(rows/16)).
//   Static shared memory: an 18x18 float tile (the block's cells plus a one-cell
//   halo), loaded cooperatively by the whole block.
// Inputs
//   power     float[rows*cols], row-major, dissipated power per cell.
//   temp_in   float[rows*cols], row-major, temperature at the start of the step.
//   rows, cols  grid size; any positive values.
//   cx, cy, cz  conductances: cx = 1/Rx (east/west neighbours), cy = 1/Ry
//             (north/south neighbours), cz = 1/Rz (to the ambient).
//   step_div_cap  time step divided by the cell's thermal capacitance.
//   amb_temp  ambient temperature.
// Output
//   temp_out  float[rows*cols]:
//     T' = T + step_div_cap * (P + (N + S - 2T) * cy + (E + W - 2T) * cx + (amb_temp - T) * cz)
//   where N/S/E/W are the neighbours' temperatures; outside the grid a neighbour
//   is replaced by the nearest cell inside it (edge replication).
// The host ping-pongs temp_in and temp_out for as many steps as wanted.
// power, temp_in and temp_out must not overlap: they are __restrict__, which lets
// the compiler read power and temp_in through the read-only data cache
// (ld.global.nc in the PTX).

#define BLOCK 16
#define HALO_W (BLOCK + 2)

extern "C" __global__ void hotspot_step(const float *__restrict__ power,
                                        const float *__restrict__ temp_in,
                                        float *__restrict__ temp_out,
                                        int rows, int cols, float cx, float cy, float cz,
                                        float step_div_cap, float amb_temp)
{
    __shared__ float tile[HALO_W][HALO_W];

    int row0 = blockIdx.y * BLOCK - 1; // grid row of tile[0][*]
    int col0 = blockIdx.x * BLOCK - 1; // grid column of tile[*][0]
    int tid = threadIdx.y * BLOCK + threadIdx.x;

    for (int k = tid; k < HALO_W * HALO_W; k += BLOCK * BLOCK) {
        int r = min(max(row0 + k / HALO_W, 0), rows - 1);
        int c = min(max(col0 + k % HALO_W, 0), cols - 1);
        tile[k / HALO_W][k % HALO_W] = temp_in[r * cols + c];
    }
    __syncthreads();

    int row = row0 + 1 + threadIdx.y;
    int col = col0 + 1 + threadIdx.x;
    if (row >= rows || col >= cols)
        return;

    int ty = threadIdx.y + 1, tx = threadIdx.x + 1;
    float t = tile[ty][tx];
    float n = tile[ty - 1][tx];
    float s = tile[ty + 1][tx];
    float w = tile[ty][tx - 1];
    float e = tile[ty][tx + 1];
    int idx = row * cols + col;
    float delta = power[idx] + (n + s - 2.0f * t) * cy + (e + w - 2.0f * t) * cx +
                  (amb_temp - t) * cz;
    temp_out[idx] = t + step_div_cap * delta;
}
