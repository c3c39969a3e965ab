package ref

// BFSIn is a graph in the CSR layout bfs_expand reads.
type BFSIn struct {
	RowOffsets []int32 // int32[NumNodes+1]; node v's edges are ColIndices[RowOffsets[v]:RowOffsets[v+1]]
	ColIndices []int32 // int32[edges], target node of each edge
	NumNodes   int
	Src        int // source node
}

// BFSInputs returns a random directed graph with n nodes: node v gets
// 1..2·avgDegree−1 out-edges to uniformly random nodes (self-loops and
// duplicate edges allowed, as in Rodinia's generator), source node 0.
// With avgDegree ≥ 2 most nodes are reachable; some usually are not.
func BFSInputs(n, avgDegree int, seed uint64) BFSIn {
	r := newRNG(seed)
	in := BFSIn{RowOffsets: make([]int32, n+1), NumNodes: n}
	for v := range n {
		in.RowOffsets[v] = int32(len(in.ColIndices))
		deg := 1 + r.intn(max(1, 2*avgDegree-1))
		for range deg {
			in.ColIndices = append(in.ColIndices, int32(r.intn(n)))
		}
	}
	in.RowOffsets[n] = int32(len(in.ColIndices))
	return in
}

// BFSState holds the device buffers of the BFS host loop.
type BFSState struct {
	Frontier, Next, Visited, Cost []int32 // int32[NumNodes] each
	Changed                       int32   // the *changed flag (one int32)
}

// InitialState returns the buffers as the host sets them up before the first
// bfs_expand: frontier[src] = visited[src] = 1, cost[src] = 0, every other
// cost −1, every other flag 0, *changed = 0.
func (in BFSIn) InitialState() BFSState {
	s := BFSState{
		Frontier: make([]int32, in.NumNodes), Next: make([]int32, in.NumNodes),
		Visited: make([]int32, in.NumNodes), Cost: make([]int32, in.NumNodes),
	}
	for i := range s.Cost {
		s.Cost[i] = -1
	}
	s.Frontier[in.Src], s.Visited[in.Src], s.Cost[in.Src] = 1, 1, 0
	return s
}

// BFS is the reference for the final cost[]: the hop distance of every node
// from Src by a sequential queue BFS, −1 when unreachable. Exact.
func BFS(in BFSIn) []int32 {
	cost := make([]int32, in.NumNodes)
	for i := range cost {
		cost[i] = -1
	}
	cost[in.Src] = 0
	queue := []int32{int32(in.Src)}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range in.ColIndices[in.RowOffsets[v]:in.RowOffsets[v+1]] {
			if cost[w] < 0 {
				cost[w] = cost[v] + 1
				queue = append(queue, w)
			}
		}
	}
	return cost
}

// BFSFinalState is the reference for all buffers after the host loop ends:
// cost from BFS, visited[v] = 1 exactly for reachable nodes, frontier and next
// all 0, and *changed = 0 (the last iteration found nothing new).
func BFSFinalState(in BFSIn) BFSState {
	s := BFSState{
		Frontier: make([]int32, in.NumNodes), Next: make([]int32, in.NumNodes),
		Visited: make([]int32, in.NumNodes), Cost: BFS(in),
	}
	for i, c := range s.Cost {
		if c >= 0 {
			s.Visited[i] = 1
		}
	}
	return s
}

// BFSLevels returns how many bfs_expand/bfs_update iterations the host loop
// runs: the eccentricity of Src plus one (the last finds no new node).
func BFSLevels(in BFSIn) int {
	m := int32(0)
	for _, c := range BFS(in) {
		m = max(m, c)
	}
	return int(m) + 1
}
