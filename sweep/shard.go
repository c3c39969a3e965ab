package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is shard I of N (0 ≤ I < N): the plan entries k with k mod N == I.
type Shard struct{ I, N int }

// Whole returns the single shard 0/1, which owns every entry.
func Whole() Shard { return Shard{0, 1} }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Owns reports whether plan entry k belongs to s.
func (s Shard) Owns(k int) bool { return k%s.N == s.I }

// Owner returns the shard of N that owns entry k.
func Owner(k, n int) Shard { return Shard{k % n, n} }

// ParseShard parses "I/N" with 0 ≤ I < N.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 0 ≤ I < N", s)
	}
	return Shard{i, n}, nil
}

// AutoShard derives the shard from the scheduler's environment (getenv):
//
//   - Slurm job arrays: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and
//     SLURM_ARRAY_TASK_COUNT give I = ID − MIN and N = COUNT; a stepped
//     array (SLURM_ARRAY_TASK_STEP other than 1) is refused, since its
//     task ids do not cover MIN … MIN+COUNT−1.
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX gives I; N is shards.
//
// shards (0 = not given) must agree with Slurm's count when both are
// given and is required with Kubernetes. Anything missing, malformed or
// inconsistent is an error.
func AutoShard(getenv func(string) string, shards int) (Shard, error) {
	num := func(name string) (int, error) {
		v := getenv(name)
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--shard auto: %s=%q is not a non-negative integer", name, v)
		}
		return n, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		if st := getenv("SLURM_ARRAY_TASK_STEP"); st != "" && st != "1" {
			return Shard{}, fmt.Errorf("--shard auto: stepped Slurm array (SLURM_ARRAY_TASK_STEP=%s); submit --array=0-N-1 without a step", st)
		}
		id, err := num("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return Shard{}, err
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Shard{}, err
		}
		n, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Shard{}, err
		}
		if hi := getenv("SLURM_ARRAY_TASK_MAX"); hi != "" && hi != strconv.Itoa(lo+n-1) {
			return Shard{}, fmt.Errorf("--shard auto: Slurm array %d-%s has %d tasks: not a contiguous range (use --array=0-%d)", lo, hi, n, n-1)
		}
		if n < 1 || id < lo || id-lo >= n {
			return Shard{}, fmt.Errorf("--shard auto: Slurm task %d outside array %d…%d", id, lo, lo+n-1)
		}
		if shards != 0 && shards != n {
			return Shard{}, fmt.Errorf("--shard auto: --shards %d but the Slurm array has %d tasks", shards, n)
		}
		return Shard{id - lo, n}, nil
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		i, err := num("JOB_COMPLETION_INDEX")
		if err != nil {
			return Shard{}, err
		}
		if shards < 1 {
			return Shard{}, fmt.Errorf("--shard auto with JOB_COMPLETION_INDEX needs --shards N (the Job's completions)")
		}
		if i >= shards {
			return Shard{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d but --shards %d", i, shards)
		}
		return Shard{i, shards}, nil
	}
	return Shard{}, fmt.Errorf("--shard auto: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set")
}
