// Package sweep runs parameter sweeps as plan → shards → merge, so that a
// batch scheduler (Slurm job arrays, Kubernetes Indexed Jobs) can spread
// them over machines without ptxtrace calling any scheduler API.
//
// Model. A Spec (YAML) names the axes: a vr section (the embedded volume
// renderer of experiments/vr) and/or kernels (PTX file + single-launch
// spec) × blocks × models × probe modes. MakePlan expands them into a
// Plan: one Entry per canonical Config, sorted by its content id. An id is the
// SHA-256 (first 128 bits, hex) of the tool version, the canonical JSON of
// the config with file paths left out, and the SHA-256 of every input file
// by role; moving inputs keeps ids, editing one changes them.
//
// Invariants.
//   - Shard{I, N} owns plan entries k with k mod N == I; the shards of one
//     N are disjoint and their union is the plan.
//   - Run writes each finished entry to DIR/ID/ by building it in a
//     private temporary directory under DIR/.tmp and renaming it into
//     place; an ID directory is therefore complete or absent. Entries
//     whose directory exists are skipped (resume). A failing entry writes
//     DIR/ID.error (atomically) and the others go on. Two processes
//     running the same entry both build it; the first rename wins and the
//     loser discards its identical copy.
//   - Every output byte depends only on the plan entry: no times, host
//     names or process ids, whatever the shard count or Jobs.
//   - Merge reads the ID directories in plan order and writes the tables;
//     a missing or failed entry is an error unless allowed.
//
// The package never submits jobs: SlurmScripts and K8sManifests return
// sbatch scripts and Kubernetes Job YAML for the user to submit. AutoShard
// reads the shard from the scheduler's environment, passed in as a
// function (no process state is read here).
package sweep
