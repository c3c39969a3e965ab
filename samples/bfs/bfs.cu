// bfs: breadth-first search over a CSR graph, one frontier level per pair of launches.
//
// Workload of seeds 000/002 (Rodinia-style "bfs"). All arrays are int.
//
// Graph (CSR): node v's out-neighbours are col_indices[row_offsets[v] ..
// row_offsets[v+1]-1]; row_offsets has num_nodes+1 entries.
// Host set-up: frontier[], next[], visited[] all 0 except frontier[src] = 1 and
// visited[src] = 1; cost[] all -1 except cost[src] = 0.
// Host loop: do { *changed = 0; bfs_expand; bfs_update; } while (*changed);
// At the end cost[v] is the hop distance from src, or -1 if unreachable.
//
// Both kernels: one thread per node.
//   Launch: 1D blocks of any size (256 is typical), 1D grid ceil(num_nodes / blockDim.x).
//
// Kernel bfs_expand: every frontier node v leaves the frontier and, for each
// unvisited neighbour u, sets cost[u] = cost[v] + 1 and next[u] = 1.
// Several threads may write the same u, but all frontier nodes share one level,
// so they write identical values: the result is independent of thread order and
// needs no atomics. Frontier nodes are always visited, so no thread writes the
// cost of a node another thread is reading.
//
// Kernel bfs_update: every node flagged in next[] joins the frontier and is
// marked visited; next[] is cleared and *changed is set to 1 (same value from
// every writer, so again order-independent).

extern "C" __global__ void bfs_expand(const int *row_offsets, const int *col_indices,
                                      int *frontier, int *next, const int *visited,
                                      int *cost, int num_nodes)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= num_nodes || !frontier[v])
        return;
    frontier[v] = 0;
    int level = cost[v] + 1;
    int end = row_offsets[v + 1];
    for (int e = row_offsets[v]; e < end; e++) {
        int u = col_indices[e];
        if (!visited[u]) {
            cost[u] = level;
            next[u] = 1;
        }
    }
}

extern "C" __global__ void bfs_update(int *frontier, int *next, int *visited, int *changed,
                                      int num_nodes)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < num_nodes && next[v]) {
        frontier[v] = 1;
        visited[v] = 1;
        next[v] = 0;
        *changed = 1;
    }
}
