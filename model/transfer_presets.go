package model

import "fmt"

// Transfer presets are functions, like the GPU presets: no caller can
// change what a preset means for another. docs/transfer.md gives the
// source or assumption of every value; Notes repeats them in the spec.

// GTX480Transfer is the seed 001 platform: GeForce GTX480 (GF100, 4 GPCs)
// on PCIe 2.0 x16, Core i7 2600, Gdev runtime on Nouveau. The seed gives
// the crossovers (§6.2, §6.3) but no absolute times in its text, so the
// values below are plausible magnitudes chosen so that the model's
// crossovers fall where Fig. 11/12 put them (TestTransferSeedCrossovers).
func GTX480Transfer() TransferSpec {
	return TransferSpec{
		Name:  "gtx480",
		Link:  LinkSpec{Gen: 2, Lanes: 16},
		APINs: 1000,
		DMA:   DMASpec{SetupNs: 14000, H2DMBps: 6000, D2HMBps: 6000},
		IORW:  IORWSpec{WriteBytes: 64, WriteNs: 16, FlushNs: 1000, ReadBytes: 8, ReadNs: 400},
		Micro: MicroSpec{
			HUB:  ControllerSpec{ClockMHz: 1400, DispatchCycles: 700, CallCycles: 70, MergeCycles: 40},
			GPC:  ControllerSpec{ClockMHz: 700, DispatchCycles: 700, CallCycles: 70, MergeCycles: 40},
			GPCs: 4, SetupNs: 5000, CmdNs: 500, PollNs: 1000,
			HostReadNs: 700, HostWriteNs: 100, DevNs: 100, XferMBps: 4000,
		},
		Notes: []string{
			"seed 001 §4.1, §6: GTX480 (GF100: 4 GPCs, HUB and GPC microcontrollers), PCIe 2.0 x16, Core i7 2600, Gdev + Nouveau",
			"seed §5.2: microcontroller DMA moves 2^n bytes (3 ≤ n ≤ 8) through its data section; > 256 B takes several calls",
			"seed §6.2: HUB is clocked higher than GPC (clocks assumed: HUB 1400 MHz, GPC 700 MHz)",
			"seed §2.2 (Gdev): DMA is nearly flat up to 64 KB (setup-bound); memory-mapped access degrades past 256 B",
			"fitted: all times; the test checks Fig. 11/12's crossovers within one power of two",
		},
	}
}

// modernTransfer is shared by the PCIe 4/5 presets: CUDA runtime, pinned
// host memory, a write-combined BAR mapping for IORW. The microcontroller
// methods are hypothetical on these GPUs (their firmware is signed and
// cannot be replaced since Maxwell); they keep the seed's 256-byte xfer
// limit with controller clocks and link latencies scaled as noted.
func modernTransfer(name string, gen int, dmaMBps, apiNs, setupNs, readNs int64, hubMHz, gpcMHz int64, gpcs int) TransferSpec {
	return TransferSpec{
		Name:  name,
		Link:  LinkSpec{Gen: gen, Lanes: 16},
		APINs: apiNs,
		DMA:   DMASpec{SetupNs: setupNs, H2DMBps: dmaMBps, D2HMBps: dmaMBps},
		IORW:  IORWSpec{WriteBytes: 64, WriteNs: (64*1000*4 + dmaMBps - 1) / dmaMBps, FlushNs: readNs, ReadBytes: 8, ReadNs: readNs},
		Micro: MicroSpec{
			HUB:  ControllerSpec{ClockMHz: hubMHz, DispatchCycles: 700, CallCycles: 70, MergeCycles: 40},
			GPC:  ControllerSpec{ClockMHz: gpcMHz, DispatchCycles: 700, CallCycles: 70, MergeCycles: 40},
			GPCs: gpcs, SetupNs: 2000, CmdNs: 200, PollNs: readNs,
			HostReadNs: readNs, HostWriteNs: 100, DevNs: 100, XferMBps: dmaMBps / 4,
		},
		Notes: []string{
			fmt.Sprintf("PCIe %d.0 x16: %d MB/s after line coding; pinned DMA assumed at %d MB/s each way", gen, LinkSpec{gen, 16}.RawMBps(), dmaMBps),
			fmt.Sprintf("assumed: CUDA API call %d ns, copy setup + completion %d ns, non-posted MMIO read %d ns", apiNs, setupNs, readNs),
			"assumed: IORW writes are 64-byte write-combined bursts at a quarter of the DMA bandwidth, reads 8 bytes per round trip",
			fmt.Sprintf("hypothetical microcontroller methods: HUB %d MHz, GPC %d MHz, GPC4 over %d GPCs, 256-byte xfers as on Fermi", hubMHz, gpcMHz, gpcs),
			"not measured: the GPU backend that would fit these values (ptxtrace transfer --gpu) is pending",
		},
	}
}

// RTX3080Transfer: GA102 on PCIe 4.0 x16 (6 GPCs), assumptions as noted.
func RTX3080Transfer() TransferSpec {
	return modernTransfer("rtx3080", 4, 24000, 2000, 4000, 900, 1600, 1600, 6)
}

// A100Transfer: A100 PCIe 4.0 x16 (7 GPCs usable), assumptions as noted.
func A100Transfer() TransferSpec {
	return modernTransfer("a100", 4, 24000, 2000, 4000, 900, 1600, 1400, 7)
}

// H100Transfer: H100 on PCIe 5.0 x16 (8 GPCs), assumptions as noted.
func H100Transfer() TransferSpec {
	return modernTransfer("h100", 5, 48000, 2000, 3500, 800, 1800, 1800, 8)
}

// TransferPreset returns the transfer parameters of the GPU preset named
// name (a GPU spec's Name: gtx480, rtx3080, a100, h100).
func TransferPreset(name string) (TransferSpec, bool) {
	switch name {
	case "gtx480":
		return GTX480Transfer(), true
	case "rtx3080":
		return RTX3080Transfer(), true
	case "a100":
		return A100Transfer(), true
	case "h100":
		return H100Transfer(), true
	}
	return TransferSpec{}, false
}
