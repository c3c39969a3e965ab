// nn: nearest-neighbour search, distance step: Euclidean distance from every record's
// (latitude, longitude) to a query point.
//
// Workload of seeds 000/002 (Rodinia-style "nn"). The host (or a later pass)
// picks the k smallest distances; this kernel only computes them.
//
// Kernel nn_distance: one thread per record.
//   Launch: 1D blocks of any size (256 is typical), 1D grid ceil(n / blockDim.x).
// Inputs
//   locations  float2[n]: .x = latitude, .y = longitude, read-only.
//   n          number of records; threads with index >= n do nothing.
//   lat, lng   the query point.
// Output
//   distances  float[n], distances[i] = sqrtf((lat - x)^2 + (lng - y)^2)
//              (IEEE-rounded sqrt; the compiler may fuse the multiply-adds).

extern "C" __global__ void nn_distance(const float2 *locations, float *distances, int n,
                                       float lat, float lng)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 p = locations[i];
        float dlat = lat - p.x;
        float dlng = lng - p.y;
        distances[i] = sqrtf(dlat * dlat + dlng * dlng);
    }
}
