package sweep

import (
	"fmt"
	"testing"
)

func fakePlan(n int) *Plan {
	p := &Plan{Header: Header{Plan: PlanFormat, Tool: "t"}}
	for k := range n {
		p.Entries = append(p.Entries, Entry{ID: fmt.Sprintf("%032d", k)})
	}
	return p
}

// TestPartition: for every N the shards are disjoint, cover the plan, and
// shard I holds exactly the k with k mod N == I.
func TestPartition(t *testing.T) {
	for _, size := range []int{0, 1, 5, 100} {
		p := fakePlan(size)
		for _, n := range []int{1, 2, 3, 7, 1000} {
			seen := make([]int, size)
			for i := range n {
				got := p.ShardEntries(Shard{i, n})
				for j, k := range got {
					if k < 0 || k >= size {
						t.Fatalf("size %d, shard %d/%d: index %d out of range", size, i, n, k)
					}
					if j > 0 && got[j-1] >= k {
						t.Fatalf("size %d, shard %d/%d: not ascending: %v", size, i, n, got)
					}
					if k%n != i {
						t.Errorf("size %d, shard %d/%d holds %d", size, i, n, k)
					}
					seen[k]++
				}
				if want := (size - i + n - 1) / n; i < size && len(got) != want || i >= size && len(got) != 0 {
					t.Errorf("size %d, shard %d/%d: %d entries", size, i, n, len(got))
				}
			}
			for k, c := range seen {
				if c != 1 {
					t.Errorf("size %d, N %d: entry %d in %d shards", size, n, k, c)
				}
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	good := map[string]Shard{"0/1": {0, 1}, "2/3": {2, 3}, "999/1000": {999, 1000}}
	for s, want := range good {
		if got, err := ParseShard(s); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "1", "1/1", "3/3", "-1/2", "0/0", "0/-1", "a/2", "0/b", "0/2/3", " 0/2", "0/2 "} {
		if got, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) = %v, want an error", s, got)
		}
	}
}

func TestAutoShard(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		shards int
		want   Shard
		bad    bool
	}{
		{"slurm", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "9", "SLURM_ARRAY_TASK_COUNT": "10", "SLURM_ARRAY_TASK_STEP": "1"}, 0, Shard{3, 10}, false},
		{"slurm offset", map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"}, 4, Shard{2, 4}, false},
		{"slurm stepped", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "5", "SLURM_ARRAY_TASK_STEP": "2"}, 0, Shard{}, true},
		{"slurm sparse", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "3"}, 0, Shard{}, true},
		{"slurm no count", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0"}, 0, Shard{}, true},
		{"slurm shards disagree", map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 5, Shard{}, true},
		{"slurm id outside", map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{}, true},
		{"slurm junk", map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"}, 0, Shard{}, true},
		{"k8s", map[string]string{"JOB_COMPLETION_INDEX": "4"}, 5, Shard{4, 5}, false},
		{"k8s no shards", map[string]string{"JOB_COMPLETION_INDEX": "0"}, 0, Shard{}, true},
		{"k8s index too big", map[string]string{"JOB_COMPLETION_INDEX": "5"}, 5, Shard{}, true},
		{"k8s negative", map[string]string{"JOB_COMPLETION_INDEX": "-1"}, 5, Shard{}, true},
		{"nothing", nil, 3, Shard{}, true},
	}
	for _, tt := range tests {
		got, err := AutoShard(func(k string) string { return tt.env[k] }, tt.shards)
		if tt.bad {
			if err == nil {
				t.Errorf("%s: got %v, want an error", tt.name, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}
