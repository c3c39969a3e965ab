package instrument

import (
	"fmt"

	"github.com/ptxtrace/ptxtrace/manifest"
)

// StagingPlan is the shared staging of one launch of an instrumented
// kernel: how many of each warp's records are staged in dynamic shared
// memory, where the staging area starts, and what it adds to the launch.
// The host passes Offset and Records in the kernel's __pt_stage_off and
// __pt_stage_recs parameters and launches with Offset+Bytes bytes of
// dynamic shared memory (docs/instrument.md, "Staging").
type StagingPlan struct {
	Records int // shared records per warp; 0 = global staging
	Offset  int // byte offset of the staging area in dynamic shared memory: the kernel's own dynamic bytes rounded up to 16
	Bytes   int // staging bytes: warps per block × (32 + 16 × Records); 0 when Records is 0
	// Before is the occupancy of the launch without staging, After with it
	// (equal to Before when Records is 0).
	Before, After Occupancy
	Reason        string // why Records has its value
}

// DynamicShared is the dynamic shared memory the instrumented launch needs:
// the kernel's own dynamic bytes, padded to the staging offset, plus the
// staging area.
func (p StagingPlan) DynamicShared(kernelDynamic int) int {
	if p.Records == 0 {
		return kernelDynamic
	}
	return p.Offset + p.Bytes
}

// PlanStaging sizes the shared staging of one launch on an SM with the
// limits a: threads per block, registers per thread (0 = unknown, not
// limiting), the kernel's static shared bytes and the launch's own dynamic
// shared bytes, and the records per warp of the trace buffer (the
// manifest's records_per_warp: more would never be used). With
// keepOccupancy (staging auto) Records is the largest count that keeps the
// number of resident blocks per SM of the occupancy calculator
// (Arch.Compute) unchanged; without it (staging shared) the largest that
// fits one block. Records below 1 become 0: the kernel then stages in its
// global segment. The staging area starts at the kernel's dynamic shared
// memory rounded up to 16 bytes, which itself starts at the static shared
// memory rounded up to 16 (the layout of replay and of the CUDA driver).
func PlanStaging(a Arch, threads, regs, staticShared, dynShared, capacity int, keepOccupancy bool) (StagingPlan, error) {
	var p StagingPlan
	if staticShared < 0 || dynShared < 0 {
		return p, fmt.Errorf("negative shared memory (%d static, %d dynamic)", staticShared, dynShared)
	}
	if capacity < 1 {
		return p, fmt.Errorf("records per warp %d must be positive", capacity)
	}
	before, err := a.Compute(threads, regs, staticShared+dynShared)
	if err != nil {
		return p, err
	}
	p.Before, p.After = before, before
	p.Offset = alignUp(dynShared, 16)
	if before.Blocks == 0 {
		p.Reason = fmt.Sprintf("no block fits an SM (limited by %s)", before.Limiter)
		return p, nil
	}
	warps := (threads + 31) / 32
	used := alignUp(staticShared, 16) + p.Offset
	limit := a.MaxSharedPerBlock
	if keepOccupancy {
		// blocks × ⌈S + reserved⌉ ≤ SharedPerSM  ⇔  S ≤ ⌊SharedPerSM/blocks⌋ down to the unit − reserved
		limit = min(limit, floorTo(a.SharedPerSM/before.Blocks, a.SharedAllocUnit)-a.ReservedSharedPerBlock)
	}
	avail := limit - used
	recs := 0
	if avail > 0 {
		recs = (avail/warps - manifest.SegmentHeaderBytes) / manifest.RecordBytes
	}
	recs = min(recs, capacity)
	for ; recs >= 1; recs-- {
		after, err := a.Compute(threads, regs, used+warps*(manifest.SegmentHeaderBytes+recs*manifest.RecordBytes))
		if err == nil && (!keepOccupancy || after.Blocks == before.Blocks) {
			p.After = after
			break
		}
	}
	if recs < 1 {
		p.Reason = fmt.Sprintf("no shared memory to spare: %d bytes used per block of %d", used, limit)
		if keepOccupancy {
			p.Reason += fmt.Sprintf(" that keep %d blocks per SM", before.Blocks)
		}
		return p, nil
	}
	p.Records = recs
	p.Bytes = warps * (manifest.SegmentHeaderBytes + recs*manifest.RecordBytes)
	if keepOccupancy {
		p.Reason = fmt.Sprintf("%d records per warp keep %d blocks (%d warps) per SM, limited by %s", recs, before.Blocks, before.ActiveWarps, before.Limiter)
	} else {
		p.Reason = fmt.Sprintf("%d records per warp: the most one block holds", recs)
	}
	return p, nil
}
