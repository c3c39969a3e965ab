package launch

import (
	"github.com/ptxtrace/ptxtrace/instrument"
	"github.com/ptxtrace/ptxtrace/model"
)

// stagingArch gives the occupancy calculator the limits the model admits
// CTAs by (model/sm.go fits: CTAs, warps, registers allocated per warp in
// RegAllocUnit units, shared memory in SharedAllocUnit units, no reserved
// shared memory), so that instrument.PlanStaging keeps the model's resident
// CTAs per SM.
func stagingArch(s *model.Spec) instrument.Arch {
	return instrument.Arch{
		MaxWarpsPerSM:        min(s.SM.MaxWarps, s.SM.MaxThreads/32),
		MaxBlocksPerSM:       s.SM.MaxCTAs,
		MaxThreadsPerBlock:   1024,
		RegsPerSM:            s.SM.Registers,
		RegAllocUnit:         s.SM.RegAllocUnit,
		WarpAllocGranularity: 1,
		MaxRegsPerThread:     255,
		SharedPerSM:          s.Shared.Bytes,
		MaxSharedPerBlock:    s.Shared.Bytes,
		SharedAllocUnit:      s.SM.SharedAllocUnit,
	}
}
